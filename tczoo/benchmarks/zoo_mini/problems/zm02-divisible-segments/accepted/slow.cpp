// Same prefix-residue idea, but counted online in a std::map (heavier constant):
// every prefix adds the number of earlier prefixes with the same residue. O(n log n).
#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int t;
    cin >> t;
    while (t--) {
        int n;
        long long k;
        cin >> n >> k;
        map<long long, long long> seen;
        seen[0] = 1;
        long long s = 0, ans = 0;
        for (int i = 0; i < n; i++) {
            long long a;
            cin >> a;
            s = ((s + a) % k + k) % k;
            long long &c = seen[s];
            ans += c;
            c++;
        }
        cout << ans << '\n';
    }
    return 0;
}
