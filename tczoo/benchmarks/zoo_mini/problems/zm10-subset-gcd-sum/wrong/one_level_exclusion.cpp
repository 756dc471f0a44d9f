#include <bits/stdc++.h>
using namespace std;
const long long MOD = 998244353;

// subsets with gcd exactly d = (subsets of multiples of d) - (subsets of multiples of 2d, 3d, ...)
int main() {
    int n;
    scanf("%d", &n);
    vector<int> a(n);
    int m = 1;
    for (auto& x : a) scanf("%d", &x), m = max(m, x);
    vector<int> freq(m + 1, 0), c(m + 1, 0);
    for (int x : a) freq[x]++;
    for (int d = 1; d <= m; d++)
        for (int k = d; k <= m; k += d) c[d] += freq[k];
    vector<long long> pw(n + 1);
    pw[0] = 1;
    for (int i = 1; i <= n; i++) pw[i] = pw[i - 1] * 2 % MOD;
    long long ans = 0;
    for (int d = 1; d <= m; d++) {
        long long exact = pw[c[d]] - 1;
        for (int k = 2 * d; k <= m; k += d) exact -= pw[c[k]] - 1;
        exact %= MOD;
        if (exact < 0) exact += MOD;
        ans = (ans + d * exact) % MOD;
    }
    printf("%lld\n", ans);
}
