#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    scanf("%d", &n);
    vector<pair<long long, long long>> a(n);
    for (auto &x : a) scanf("%lld %lld", &x.first, &x.second);
    // earliest deadline first, richer offer first on ties
    sort(a.begin(), a.end(), [](const pair<long long, long long> &x, const pair<long long, long long> &y) {
        if (x.first != y.first) return x.first < y.first;
        return x.second > y.second;
    });
    long long day = 0, total = 0;
    for (auto &x : a) {
        if (day < x.first) {
            day++;
            total += x.second;
        }
    }
    printf("%lld\n", total);
}
