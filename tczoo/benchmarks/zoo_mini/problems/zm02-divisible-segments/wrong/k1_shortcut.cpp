#include <bits/stdc++.h>
using namespace std;

int main() {
    int t;
    scanf("%d", &t);
    while (t--) {
        int n;
        long long k;
        scanf("%d %lld", &n, &k);
        if (k == 1) {  // every segment sum is divisible by 1
            printf("%lld\n", 1LL * n * (n + 1) / 2);
            continue;
        }
        vector<long long> pre(n + 1, 0);
        for (int i = 1; i <= n; i++) {
            long long a;
            scanf("%lld", &a);
            pre[i] = ((pre[i - 1] + a) % k + k) % k;
        }
        sort(pre.begin(), pre.end());
        long long ans = 0, run = 1;
        for (int i = 1; i <= n; i++) {
            if (pre[i] == pre[i - 1]) ans += run++;
            else run = 1;
        }
        printf("%lld\n", ans);
    }
}
