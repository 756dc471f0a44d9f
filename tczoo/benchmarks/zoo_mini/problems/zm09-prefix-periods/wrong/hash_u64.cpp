#include <bits/stdc++.h>
using namespace std;
typedef unsigned long long ull;

// polynomial hashing modulo 2^64 (natural overflow); the smallest period only grows
int main() {
    int t;
    scanf("%d", &t);
    static char buf[200005];
    const ull B = 131;
    vector<ull> h(200005), pw(200005);
    pw[0] = 1;
    for (int i = 1; i < 200005; i++) pw[i] = pw[i - 1] * B;
    while (t--) {
        scanf("%s", buf);
        int n = strlen(buf);
        h[0] = 0;
        for (int i = 0; i < n; i++) h[i + 1] = h[i] * B + (ull)buf[i];
        auto get = [&](int l, int r) { return h[r] - h[l] * pw[r - l]; };  // [l, r)
        long long total = 0;
        int p = 1;
        for (int len = 1; len <= n; len++) {
            while (p < len && get(0, len - p) != get(p, len)) p++;
            total += p;
        }
        printf("%lld\n", total);
    }
}
