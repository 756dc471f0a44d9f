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
        // quick reject: k cracked stones in a row cannot be crossed
        int run = 0;
        bool bad = false;
        for (char c : s) {
            run = (c == '#') ? run + 1 : 0;
            if (run >= k) bad = true;
        }
        if (bad) { cout << "IMPOSSIBLE\n"; continue; }
        vector<long long> a(n), dp(n);
        for (auto &x : a) cin >> x;
        deque<int> dq;
        dp[0] = a[0];
        dq.push_back(0);
        for (int i = 1; i < n; i++) {
            while (dq.front() < i - k) dq.pop_front();
            if (s[i] == '#') continue;
            dp[i] = dp[dq.front()] + a[i];
            while (!dq.empty() && dp[dq.back()] <= dp[i]) dq.pop_back();
            dq.push_back(i);
        }
        cout << dp[n - 1] << "\n";
    }
}
