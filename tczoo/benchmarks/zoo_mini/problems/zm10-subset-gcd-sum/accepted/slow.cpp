// Count c_d by enumerating the divisors of every a_i by trial division (O(n sqrt A)), then
// peel off exact gcds from the top: e_d = (2^{c_d} - 1) - sum_{k >= 2} e_{kd}; answer = sum d * e_d.
#include <bits/stdc++.h>
using namespace std;
const long long MOD = 998244353;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<int> a(n);
    int m = 1;
    for (auto& x : a) {
        scanf("%d", &x);
        m = max(m, x);
    }
    vector<int> c(m + 1, 0);
    for (int x : a) {
        for (int d = 1; (long long)d * d <= x; d++) {
            if (x % d) continue;
            c[d]++;
            if (d != x / d) c[x / d]++;
        }
    }
    vector<long long> pw(n + 1), e(m + 1, 0);
    pw[0] = 1;
    for (int i = 1; i <= n; i++) pw[i] = pw[i - 1] * 2 % MOD;
    long long ans = 0;
    for (int d = m; d >= 1; d--) {
        long long v = pw[c[d]] - 1;
        for (int k = 2 * d; k <= m; k += d) v -= e[k];
        e[d] = ((v % MOD) + MOD) % MOD;
        ans = (ans + (long long)d * e[d]) % MOD;
    }
    printf("%lld\n", ans);
}
