#include <bits/stdc++.h>
using namespace std;

int pi_[200005];
long long total = 1;  // the one-letter prefix has period 1

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int t;
    cin >> t;
    while (t--) {
        string s;
        cin >> s;
        int n = s.size();
        pi_[0] = 0;
        for (int i = 1; i < n; i++) {
            int k = pi_[i - 1];
            while (k > 0 && s[i] != s[k]) k = pi_[k - 1];
            if (s[i] == s[k]) k++;
            pi_[i] = k;
            total += (i + 1) - k;
        }
        cout << total << '\n';
    }
}
