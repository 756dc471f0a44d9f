#include <bits/stdc++.h>
using namespace std;

int pi_[200005];

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int t;
    cin >> t;
    while (t--) {
        string s;
        cin >> s;
        int n = s.size();
        // prefixes of length 1 and 2 handled directly
        pi_[0] = 0;
        pi_[1] = (s[1] == s[0]) ? 1 : 0;
        long long total = 1 + (2 - pi_[1]);
        for (int i = 2; i < n; i++) {
            int k = pi_[i - 1];
            while (k > 0 && s[i] != s[k]) k = pi_[k - 1];
            if (s[i] == s[k]) k++;
            pi_[i] = k;
            total += (i + 1) - k;
        }
        cout << total << '\n';
    }
}
