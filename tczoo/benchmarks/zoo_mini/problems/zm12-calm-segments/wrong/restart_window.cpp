#include <bits/stdc++.h>
using namespace std;

int main() {
    int t;
    scanf("%d", &t);
    while (t--) {
        int n;
        long long k;
        scanf("%d %lld", &n, &k);
        vector<long long> a(n);
        for (auto& x : a) scanf("%lld", &x);
        long long count = 0;
        int l = 0;
        long long hi = a[0], lo = a[0];
        for (int r = 0; r < n; r++) {
            hi = max(hi, a[r]);
            lo = min(lo, a[r]);
            if (hi - lo > k) {  // the window broke: start a fresh one at r
                l = r;
                hi = lo = a[r];
            }
            count += r - l + 1;
        }
        printf("%lld\n", count);
    }
}
