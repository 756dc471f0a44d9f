#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    long long k;
    scanf("%d %lld", &n, &k);
    vector<long long> a(n);
    long long total = 0, mx = 0;
    for (auto &x : a) {
        scanf("%lld", &x);
        total += x;
        mx = max(mx, x);
    }
    // k pieces of length L need at least k * L of ribbon, so L <= total / k:
    // start there and walk down to the first length that works
    long long ans = 0;
    for (long long len = min(mx, total / k); len >= 1; len--) {
        long long pieces = 0;
        for (long long x : a) pieces += x / len;
        if (pieces >= k) {
            ans = len;
            break;
        }
    }
    printf("%lld\n", ans);
}
