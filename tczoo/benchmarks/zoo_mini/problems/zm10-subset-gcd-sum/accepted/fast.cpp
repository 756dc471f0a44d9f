// sum over non-empty subsets S of gcd(S) = sum_d phi(d) * (2^{c_d} - 1), because
// gcd(S) = sum of phi(d) over the divisors d of gcd(S), and d | gcd(S) iff S only uses multiples of d.
// Linear sieve for phi, harmonic-series counting: O(A log A + n).
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
    vector<int> freq(m + 1, 0), phi(m + 1, 0), primes;
    for (int x : a) freq[x]++;
    vector<bool> composite(m + 1, false);
    phi[1] = 1;
    for (int i = 2; i <= m; i++) {
        if (!composite[i]) primes.push_back(i), phi[i] = i - 1;
        for (int p : primes) {
            long long ip = (long long)i * p;
            if (ip > m) break;
            composite[ip] = true;
            if (i % p == 0) { phi[ip] = phi[i] * p; break; }
            phi[ip] = phi[i] * (p - 1);
        }
    }
    vector<long long> pw(n + 1);
    pw[0] = 1;
    for (int i = 1; i <= n; i++) pw[i] = pw[i - 1] * 2 % MOD;
    long long ans = 0;
    for (int d = 1; d <= m; d++) {
        int c = 0;
        for (int k = d; k <= m; k += d) c += freq[k];
        ans = (ans + (long long)phi[d] * ((pw[c] - 1 + MOD) % MOD)) % MOD;
    }
    printf("%lld\n", ans);
}
