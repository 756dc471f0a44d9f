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
            if (s[i] == s[k]) {
                k++;
            } else {
                // border broke: start over from the first letter
                k = (s[i] == s[0]) ? 1 : 0;
            }
            pi[i] = k;
            total += (i + 1) - k;
        }
        cout << total << '\n';
    }
}
