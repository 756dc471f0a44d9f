#include <bits/stdc++.h>
using namespace std;
const long long MOD = 998244353;
const int LIM = 500000;

int freq_[LIM + 1], phi[LIM + 1];
long long pw[200005];

int main() {
    int n;
    scanf("%d", &n);
    for (int i = 0; i < n; i++) {
        int x;
        scanf("%d", &x);
        freq_[x]++;
    }
    for (int i = 0; i < LIM; i++) phi[i] = i;
    for (int p = 2; p < LIM; p++)
        if (phi[p] == p)
            for (int k = p; k < LIM; k += p) phi[k] -= phi[k] / p;
    pw[0] = 1;
    for (int i = 1; i <= n; i++) pw[i] = pw[i - 1] * 2 % MOD;
    long long ans = 0;
    for (int d = 1; d < LIM; d++) {
        int c = 0;
        for (int k = d; k < LIM; k += d) c += freq_[k];
        ans = (ans + phi[d] * (pw[c] - 1)) % MOD;
    }
    printf("%lld\n", ans);
}
