#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    scanf("%d", &n);
    vector<pair<long long, long long>> a(n);  // (fee, deadline)
    for (auto &x : a) scanf("%lld %lld", &x.second, &x.first);
    sort(a.rbegin(), a.rend());
    long long taken = 0, total = 0;
    for (auto &x : a) {
        // there is still a day left before this deadline
        if (taken < x.second) {
            taken++;
            total += x.first;
        }
    }
    printf("%lld\n", total);
}
