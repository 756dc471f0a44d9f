// The number of pieces sum(a_i / L) does not increase with L, so binary search the largest
// L in [1, max a_i] that still gives k pieces (0 when even L = 1 does not). The count
// stops as soon as it reaches k, so it never overflows. O(n log max a).
#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    long long k;
    if (scanf("%d %lld", &n, &k) != 2) return 0;
    vector<long long> a(n);
    for (auto &x : a) scanf("%lld", &x);
    auto enough = [&](long long len) {
        long long pieces = 0;
        for (long long x : a) {
            pieces += x / len;
            if (pieces >= k) return true;
        }
        return false;
    };
    long long lo = 0, hi = *max_element(a.begin(), a.end());  // enough(lo) or lo == 0
    while (lo < hi) {
        long long mid = lo + (hi - lo + 1) / 2;
        if (enough(mid)) lo = mid;
        else hi = mid - 1;
    }
    printf("%lld\n", lo);
    return 0;
}
