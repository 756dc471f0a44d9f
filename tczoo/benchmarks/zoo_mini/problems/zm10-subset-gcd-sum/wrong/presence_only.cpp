#include <bits/stdc++.h>
using namespace std;
const long long MOD = 998244353;

int main() {
    int n;
    scanf("%d", &n);
    vector<int> a(n);
    int m = 1;
    for (auto& x : a) scanf("%d", &x), m = max(m, x);
    vector<char> has(m + 1, 0);
    for (int x : a) has[x] = 1;
    vector<long long> phi(m + 1);
    for (int i = 0; i <= m; i++) phi[i] = i;
    for (int p = 2; p <= m; p++)
        if (phi[p] == p)
            for (int k = p; k <= m; k += p) phi[k] -= phi[k] / p;
    vector<long long> pw(n + 1);
    pw[0] = 1;
    for (int i = 1; i <= n; i++) pw[i] = pw[i - 1] * 2 % MOD;
    long long ans = 0;
    for (int d = 1; d <= m; d++) {
        int c = 0;
        for (int k = d; k <= m; k += d) c += has[k];
        ans = (ans + phi[d] * (pw[c] - 1)) % MOD;
    }
    printf("%lld\n", ans);
}
