#include <bits/stdc++.h>
using namespace std;

const long long NEG = -(1LL << 60);
int sz;
vector<long long> tr;

void upd(int p, long long v) {
    for (tr[p += sz] = v; p > 1; p >>= 1) tr[p >> 1] = max(tr[p], tr[p ^ 1]);
}
long long query(int l, int r) {  // max on [l, r)
    long long res = 0;
    for (l += sz, r += sz; l < r; l >>= 1, r >>= 1) {
        if (l & 1) res = max(res, tr[l++]);
        if (r & 1) res = max(res, tr[--r]);
    }
    return res;
}

int main() {
    int t;
    scanf("%d", &t);
    while (t--) {
        int n, k;
        static char s[200005];
        scanf("%d %d %s", &n, &k, s);
        vector<long long> a(n);
        for (auto &x : a) scanf("%lld", &x);
        // a run of k cracked stones cannot be jumped over
        int run = 0;
        bool bad = false;
        for (int i = 0; i < n; i++) {
            run = (s[i] == '#') ? run + 1 : 0;
            if (run >= k) bad = true;
        }
        if (bad) { puts("IMPOSSIBLE"); continue; }
        sz = 1;
        while (sz < n) sz <<= 1;
        tr.assign(2 * sz, NEG);
        upd(0, a[0]);
        for (int i = 1; i < n; i++) {
            if (s[i] == '#') continue;
            upd(i, query(max(0, i - k), i) + a[i]);
        }
        printf("%lld\n", tr[sz + n - 1]);
    }
}
