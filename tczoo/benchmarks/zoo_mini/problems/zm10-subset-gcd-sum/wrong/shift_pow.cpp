#include <bits/stdc++.h>
using namespace std;
const long long MOD = 998244353;

int main() {
    int n;
    scanf("%d", &n);
    vector<int> a(n);
    int m = 1;
    for (auto& x : a) scanf("%d", &x), m = max(m, x);
    vector<int> freq(m + 1, 0);
    for (int x : a) freq[x]++;
    vector<long long> phi(m + 1);
    for (int i = 0; i <= m; i++) phi[i] = i;
    for (int p = 2; p <= m; p++)
        if (phi[p] == p)
            for (int k = p; k <= m; k += p) phi[k] -= phi[k] / p;
    long long ans = 0;
    for (int d = 1; d <= m; d++) {
        int c = 0;
        for (int k = d; k <= m; k += d) c += freq[k];
        long long subsets = ((1LL << c) - 1) % MOD;
        ans = (ans + phi[d] % MOD * subsets) % MOD;
    }
    printf("%lld\n", ans);
}
