// Two segment sums are equal mod k exactly when their prefix sums are. Normalise every
// prefix sum (including the empty prefix) into [0, k), sort, and count equal pairs
// run by run. O(n log n) per test case.
#include <bits/stdc++.h>
using namespace std;

int main() {
    int t;
    if (scanf("%d", &t) != 1) return 0;
    vector<long long> pre;
    while (t--) {
        int n;
        long long k;
        scanf("%d %lld", &n, &k);
        pre.assign(n + 1, 0);
        long long s = 0;
        for (int i = 1; i <= n; i++) {
            long long a;
            scanf("%lld", &a);
            s = ((s + a) % k + k) % k;
            pre[i] = s;
        }
        sort(pre.begin(), pre.end());
        long long ans = 0;
        for (int i = 0, j; i <= n; i = j) {
            j = i;
            while (j <= n && pre[j] == pre[i]) j++;
            long long c = j - i;
            ans += c * (c - 1) / 2;
        }
        printf("%lld\n", ans);
    }
    return 0;
}
