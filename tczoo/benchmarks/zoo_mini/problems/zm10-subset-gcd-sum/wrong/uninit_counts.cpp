#include <bits/stdc++.h>
using namespace std;
const long long MOD = 998244353;

long long power(long long b, long long e) {
    long long r = 1;
    b %= MOD;
    while (e > 0) {
        if (e & 1) r = r * b % MOD;
        b = b * b % MOD;
        e >>= 1;
    }
    return r;
}

int main() {
    int n;
    scanf("%d", &n);
    vector<int> a;
    int m = 1;
    for (int i = 0; i < n; i++) {
        int x;
        scanf("%d", &x);
        a.push_back(x);
        m = max(m, x);
    }
    int* freq = new int[m + 1];  // counts start from whatever the allocator hands back
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
        ans = (ans + phi[d] * ((power(2, c) - 1 + MOD) % MOD)) % MOD;
    }
    printf("%lld\n", ans);
    delete[] freq;
}
