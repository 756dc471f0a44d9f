#include <bits/stdc++.h>
using namespace std;

int main() {
    int t;
    scanf("%d", &t);
    while (t--) {
        int n, k;
        scanf("%d %d", &n, &k);
        vector<int> pre(n + 1, 0);
        for (int i = 1; i <= n; i++) {
            int a;
            scanf("%d", &a);
            pre[i] = pre[i - 1] + a;
        }
        vector<long long> r(n + 1);
        for (int i = 0; i <= n; i++) r[i] = ((pre[i] % k) + k) % k;
        sort(r.begin(), r.end());
        long long ans = 0, run = 1;
        for (int i = 1; i <= n; i++) {
            if (r[i] == r[i - 1]) ans += run++;
            else run = 1;
        }
        printf("%lld\n", ans);
    }
}
