// Prefix function: the smallest period of the prefix of length i is i - pi[i-1]. O(|s|) per rhythm.
#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int t;
    cin >> t;
    string s;
    vector<int> pi;
    while (t--) {
        cin >> s;
        int n = s.size();
        pi.assign(n, 0);
        long long total = 1;  // the one-letter prefix has period 1
        for (int i = 1; i < n; i++) {
            int k = pi[i - 1];
            while (k > 0 && s[i] != s[k]) k = pi[k - 1];
            if (s[i] == s[k]) k++;
            pi[i] = k;
            total += (i + 1) - k;
        }
        cout << total << '\n';
    }
}
