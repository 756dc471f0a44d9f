#include <bits/stdc++.h>
using namespace std;
const long long MOD = 998244353;
const int LIM = 500000;

int freq_[LIM + 1];
long long e[LIM + 1], pw[200005];

int main() {
    int n;
    scanf("%d", &n);
    for (int i = 0; i < n; i++) {
        int x;
        scanf("%d", &x);
        freq_[x]++;
    }
    pw[0] = 1;
    for (int i = 1; i <= n; i++) pw[i] = pw[i - 1] * 2 % MOD;
    long long ans = 0;
    for (int d = LIM; d >= 1; d--) {
        int c = 0;
        for (int k = d; k <= LIM; k += d) c += freq_[k];
        long long sub = 0;
        for (int k = 2 * d; k <= LIM; k += d) sub = (sub + e[k]) % MOD;
        e[d] = (pw[c] - 1 - sub) % MOD;
        ans = (ans + d * e[d]) % MOD;
    }
    printf("%lld\n", ans);
}
