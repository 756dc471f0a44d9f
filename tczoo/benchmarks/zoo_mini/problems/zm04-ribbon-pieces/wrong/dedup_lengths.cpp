#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    long long k;
    scanf("%d %lld", &n, &k);
    vector<long long> a(n);
    for (auto &x : a) scanf("%lld", &x);
    // equal ribbons behave the same in every check: keep one of each length
    sort(a.begin(), a.end());
    a.erase(unique(a.begin(), a.end()), a.end());
    auto enough = [&](long long len) {
        long long pieces = 0;
        for (long long x : a) {
            pieces += x / len;
            if (pieces >= k) return true;
        }
        return false;
    };
    long long lo = 0, hi = a.back();
    while (lo < hi) {
        long long mid = lo + (hi - lo + 1) / 2;
        if (enough(mid)) lo = mid;
        else hi = mid - 1;
    }
    printf("%lld\n", lo);
}
