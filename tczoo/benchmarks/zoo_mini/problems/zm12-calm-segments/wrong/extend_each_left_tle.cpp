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
        for (int l = 0; l < n; l++) {
            long long hi = a[l], lo = a[l];
            for (int r = l; r < n; r++) {
                hi = max(hi, a[r]);
                lo = min(lo, a[r]);
                if (hi - lo > k) break;
                count++;
            }
        }
        printf("%lld\n", count);
    }
}
