// Two pointers with monotonic deques of indices (window maximum and minimum). For every right end r
// the smallest valid left end only moves right, so each index enters and leaves each deque once: O(n).
#include <bits/stdc++.h>
using namespace std;

int main() {
    int t;
    if (scanf("%d", &t) != 1) return 0;
    vector<long long> a;
    vector<int> mx, mn;  // deques as vectors with a moving head
    while (t--) {
        int n;
        long long k;
        scanf("%d %lld", &n, &k);
        a.resize(n);
        for (auto& x : a) scanf("%lld", &x);
        mx.assign(n, 0);
        mn.assign(n, 0);
        int mxh = 0, mxt = 0, mnh = 0, mnt = 0;
        long long count = 0;
        int l = 0;
        for (int r = 0; r < n; r++) {
            while (mxt > mxh && a[mx[mxt - 1]] <= a[r]) mxt--;
            mx[mxt++] = r;
            while (mnt > mnh && a[mn[mnt - 1]] >= a[r]) mnt--;
            mn[mnt++] = r;
            while (a[mx[mxh]] - a[mn[mnh]] > k) {
                l++;
                if (mx[mxh] < l) mxh++;
                if (mn[mnh] < l) mnh++;
            }
            count += r - l + 1;
        }
        printf("%lld\n", count);
    }
}
