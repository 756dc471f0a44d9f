#include <bits/stdc++.h>
using namespace std;

const long long NEG = LLONG_MIN / 4;
long long a[200005], dp[200005];
char s[200005];
deque<int> dq;

int main() {
    int t;
    scanf("%d", &t);
    while (t--) {
        int n, k;
        scanf("%d %d %s", &n, &k, s);
        for (int i = 0; i < n; i++) scanf("%lld", &a[i]), dp[i] = NEG;
        dp[0] = a[0];
        dq.push_back(0);
        for (int i = 1; i < n; i++) {
            while (!dq.empty() && dq.front() < i - k) dq.pop_front();
            if (s[i] == '#' || dq.empty()) continue;
            dp[i] = dp[dq.front()] + a[i];
            while (!dq.empty() && dp[dq.back()] <= dp[i]) dq.pop_back();
            dq.push_back(i);
        }
        if (dp[n - 1] == NEG) puts("IMPOSSIBLE");
        else printf("%lld\n", dp[n - 1]);
    }
}
