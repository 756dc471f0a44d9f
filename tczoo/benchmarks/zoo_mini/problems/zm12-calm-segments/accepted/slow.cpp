// Sparse tables for range maximum and minimum, then for every right end r a binary search for the
// smallest left end l with max - min <= k (the condition is monotone in l). O(n log n) per test.
#include <bits/stdc++.h>
using namespace std;

int main() {
    int t;
    if (scanf("%d", &t) != 1) return 0;
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
        auto spread = [&](int l, int r) {  // max - min on [l, r]
            int j = 31 - __builtin_clz(r - l + 1);
            return max(hi[j][l], hi[j][r - (1 << j) + 1]) - min(lo[j][l], lo[j][r - (1 << j) + 1]);
        };
        long long count = 0;
        for (int r = 0; r < n; r++) {
            int lft = 0, rgt = r;  // answer in [lft, rgt]; l = r always works
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
