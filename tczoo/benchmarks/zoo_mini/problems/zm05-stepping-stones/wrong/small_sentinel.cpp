#include <bits/stdc++.h>
using namespace std;

// "-1e9 is below every a_i" -- but not below every sum of a_i
const long long NEG = -1000000000;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int t;
    cin >> t;
    while (t--) {
        int n, k;
        string s;
        cin >> n >> k >> s;
        vector<long long> a(n), dp(n, NEG);
        for (auto &x : a) cin >> x;
        deque<int> dq;
        dp[0] = a[0];
        dq.push_back(0);
        for (int i = 1; i < n; i++) {
            while (!dq.empty() && dq.front() < i - k) dq.pop_front();
            if (s[i] == '#' || dq.empty()) continue;
            long long cand = dp[dq.front()] + a[i];
            dp[i] = max(dp[i], cand);
            while (!dq.empty() && dp[dq.back()] <= dp[i]) dq.pop_back();
            dq.push_back(i);
        }
        if (dp[n - 1] == NEG) cout << "IMPOSSIBLE\n";
        else cout << dp[n - 1] << "\n";
    }
}
