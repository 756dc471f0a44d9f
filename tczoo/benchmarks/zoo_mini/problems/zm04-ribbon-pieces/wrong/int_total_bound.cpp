#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    long long k;
    scanf("%d %lld", &n, &k);
    vector<long long> a(n);
    int total = 0;
    long long mx = 0;
    for (auto &x : a) {
        scanf("%lld", &x);
        total += x;
        mx = max(mx, x);
    }
    auto enough = [&](long long len) {
        long long pieces = 0;
        for (long long x : a) {
            pieces += x / len;
            if (pieces >= k) return true;
        }
        return false;
    };
    // L can exceed neither the longest ribbon nor total / k
    long long lo = 0, hi = min(mx, (long long)total / k);
    while (lo < hi) {
        long long mid = lo + (hi - lo + 1) / 2;
        if (enough(mid)) lo = mid;
        else hi = mid - 1;
    }
    printf("%lld\n", lo);
}
