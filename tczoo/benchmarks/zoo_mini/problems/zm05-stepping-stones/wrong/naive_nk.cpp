#include <bits/stdc++.h>
using namespace std;

int main() {
    int t;
    scanf("%d", &t);
    static char s[200005];
    const long long NEG = LLONG_MIN / 4;
    while (t--) {
        int n, k;
        scanf("%d %d %s", &n, &k, s);
        vector<long long> a(n), dp(n, NEG);
        for (auto &x : a) scanf("%lld", &x);
        dp[0] = a[0];
        for (int i = 1; i < n; i++) {
            if (s[i] == '#') continue;
            long long best = NEG;
            for (int j = max(0, i - k); j < i; j++) best = max(best, dp[j]);
            if (best != NEG) dp[i] = best + a[i];
        }
        if (dp[n - 1] == NEG) puts("IMPOSSIBLE");
        else printf("%lld\n", dp[n - 1]);
    }
}
