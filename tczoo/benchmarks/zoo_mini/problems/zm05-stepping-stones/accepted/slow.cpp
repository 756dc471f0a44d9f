// O(n log n) per test: the window of reachable dp values is kept in a multiset.
#include <bits/stdc++.h>
using namespace std;

int main() {
    int t;
    if (scanf("%d", &t) != 1) return 0;
    static char buf[200005];
    while (t--) {
        int n, k;
        scanf("%d %d %s", &n, &k, buf);
        vector<long long> a(n);
        for (auto &x : a) scanf("%lld", &x);
        vector<long long> dp(n, 0);
        vector<bool> ok(n, false);
        multiset<long long> win;
        dp[0] = a[0];
        ok[0] = true;
        win.insert(dp[0]);
        for (int i = 1; i < n; i++) {
            int leaving = i - k - 1;
            if (leaving >= 0 && ok[leaving]) win.erase(win.find(dp[leaving]));
            if (buf[i] == '#' || win.empty()) continue;
            dp[i] = *win.rbegin() + a[i];
            ok[i] = true;
            win.insert(dp[i]);
        }
        if (ok[n - 1]) printf("%lld\n", dp[n - 1]);
        else printf("IMPOSSIBLE\n");
    }
}
