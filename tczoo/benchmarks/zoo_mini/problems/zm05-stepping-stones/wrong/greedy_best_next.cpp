#include <bits/stdc++.h>
using namespace std;

int main() {
    int t;
    scanf("%d", &t);
    static char s[200005];
    while (t--) {
        int n, k;
        scanf("%d %d %s", &n, &k, s);
        vector<long long> a(n);
        for (auto &x : a) scanf("%lld", &x);
        // jump straight to the end when possible, otherwise to the most valuable stone in reach
        long long score = a[0];
        int cur = 0;
        bool ok = true;
        while (cur != n - 1) {
            if (n - 1 - cur <= k) { score += a[n - 1]; cur = n - 1; break; }
            int best = -1;
            for (int j = cur + 1; j <= cur + k; j++)
                if (s[j] == '.' && (best < 0 || a[j] > a[best])) best = j;
            if (best < 0) { ok = false; break; }
            score += a[best];
            cur = best;
        }
        if (ok) printf("%lld\n", score);
        else puts("IMPOSSIBLE");
    }
}
