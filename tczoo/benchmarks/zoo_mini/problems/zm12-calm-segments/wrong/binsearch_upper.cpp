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
        int levels = 1;
        while ((1 << levels) <= n) levels++;
        vector<vector<long long>> hi(levels, vector<long long>(n)), lo(levels, vector<long long>(n));
        hi[0] = a;
        lo[0] = a;
        for (int j = 1; j < levels; j++)
            for (int i = 0; i + (1 << j) <= n; i++) {
                hi[j][i] = max(hi[j - 1][i], hi[j - 1][i + (1 << (j - 1))]);
                lo[j][i] = min(lo[j - 1][i], lo[j - 1][i + (1 << (j - 1))]);
            }
        auto spread = [&](int l, int r) {
            int j = 31 - __builtin_clz(r - l + 1);
            return max(hi[j][l], hi[j][r - (1 << j) + 1]) - min(lo[j][l], lo[j][r - (1 << j) + 1]);
        };
        long long count = 0;
        for (int r = 0; r < n; r++) {
            // smallest valid left end among 0 .. r-1; the segment [r, r] is always fine anyway
            int lft = 0, rgt = r - 1;
            while (lft < rgt) {
                int mid = (lft + rgt) / 2;
                if (spread(mid, r) <= k) rgt = mid;
                else lft = mid + 1;
            }
            count += r - lft + 1;
        }
        printf("%lld\n", count);
    }
}
