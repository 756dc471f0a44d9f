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
        long long total = 0;
        int p = 1;
        for (int i = 0; i < n; i++) {
            // the current period survives if the new letter repeats the one p steps back;
            // otherwise nothing shorter than the whole prefix can work
            if (i >= p && s[i] != s[i - p]) p = i + 1;
            total += p;
        }
        cout << total << '\n';
    }
}
