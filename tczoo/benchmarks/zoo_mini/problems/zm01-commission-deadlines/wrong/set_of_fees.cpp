#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    scanf("%d", &n);
    vector<pair<long long, long long>> a(n);
    for (auto &x : a) scanf("%lld %lld", &x.first, &x.second);
    sort(a.begin(), a.end());
    set<long long> kept;  // accepted fees, cheapest first
    for (auto &x : a) {
        kept.insert(x.second);
        if ((long long)kept.size() > x.first) kept.erase(kept.begin());
    }
    long long total = 0;
    for (long long v : kept) total += v;
    printf("%lld\n", total);
}
