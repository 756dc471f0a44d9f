#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int t;
    cin >> t;
    while (t--) {
        string s;
        cin >> s;
        int n = s.size();
        vector<int> pi(n, 0);
        long long total = 1;
        for (int i = 1; i < n; i++) {
            int k = pi[i - 1];
            while (k > 0 && s[i] != s[k]) k = pi[k - 1];
            if (s[i] == s[k]) k++;
            pi[i] = k;
            int len = i + 1, p = len - k;
            if (len % p != 0) p = len;  // a period must tile the prefix
            total += p;
        }
        cout << total << '\n';
    }
}
