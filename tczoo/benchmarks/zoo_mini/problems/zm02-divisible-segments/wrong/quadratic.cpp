#include <bits/stdc++.h>
using namespace std;

int main() {
    int t;
    scanf("%d", &t);
    while (t--) {
        int n;
        long long k;
        scanf("%d %lld", &n, &k);
        vector<long long> pre(n + 1, 0);
        for (int i = 1; i <= n; i++) {
            long long a;
            scanf("%lld", &a);
            pre[i] = pre[i - 1] + a;
        }
        long long ans = 0;
        for (int l = 0; l < n; l++)
            for (int r = l + 1; r <= n; r++)
                if ((pre[r] - pre[l]) % k == 0) ans++;
        printf("%lld\n", ans);
    }
}
