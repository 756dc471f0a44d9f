// O(n) per test: dp over stones with a monotone deque holding the best reachable
// stone among the last k positions.
#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int t;
    cin >> t;
    const long long NEG = LLONG_MIN / 4;
    vector<long long> dp;
    vector<int> dq;
    string out;
    while (t--) {
        int n, k;
        string s;
        cin >> n >> k >> s;
        vector<long long> a(n);
        for (auto &x : a) cin >> x;
        dp.assign(n, NEG);
        dq.assign(n, 0);
        int head = 0, tail = 0;
        dp[0] = a[0];
        dq[tail++] = 0;
        for (int i = 1; i < n; i++) {
            while (head < tail && dq[head] < i - k) head++;
            if (s[i] == '#' || head == tail) continue;
            dp[i] = dp[dq[head]] + a[i];
            while (head < tail && dp[dq[tail - 1]] <= dp[i]) tail--;
            dq[tail++] = i;
        }
        if (dp[n - 1] == NEG) out += "IMPOSSIBLE\n";
        else out += to_string(dp[n - 1]) + "\n";
    }
    cout << out;
}
