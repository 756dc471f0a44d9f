#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int t;
    cin >> t;
    while (t--) {
        int n, k;
        string s;
        cin >> n >> k >> s;
        vector<int> a(n), dp(n, INT_MIN);
        for (auto &x : a) cin >> x;
        deque<int> dq;
        dp[0] = a[0];
        dq.push_back(0);
        for (int i = 1; i < n; i++) {
            while (!dq.empty() && dq.front() < i - k) dq.pop_front();
            if (s[i] == '#' || dq.empty()) continue;
            dp[i] = dp[dq.front()] + a[i];
            while (!dq.empty() && dp[dq.back()] <= dp[i]) dq.pop_back();
            dq.push_back(i);
        }
        if (dp[n - 1] == INT_MIN) cout << "IMPOSSIBLE\n";
        else cout << dp[n - 1] << "\n";
    }
}
