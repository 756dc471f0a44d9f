#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    scanf("%d", &n);
    vector<pair<long long, long long>> a(n);  // (fee, deadline)
    for (auto &x : a) scanf("%lld %lld", &x.second, &x.first);
    sort(a.rbegin(), a.rend());
    // days 0..n-1; a deadline past the last useful day is the same as the last day
    vector<int> par(n);
    iota(par.begin(), par.end(), 0);
    auto findFree = [&](int x) {
        int r = x;
        while (par[r] != r) r = par[r];
        while (par[x] != r) { int nx = par[x]; par[x] = r; x = nx; }
        return r;
    };
    long long total = 0;
    for (auto &x : a) {
        int d = (int)min<long long>(x.second, n - 1);
        int day = findFree(d);
        if (day > 0) {
            total += x.first;
            par[day] = day - 1;
        }
    }
    printf("%lld\n", total);
}
