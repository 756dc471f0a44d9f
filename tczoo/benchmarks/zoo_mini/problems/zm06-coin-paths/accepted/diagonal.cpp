// O(n*m) in anti-diagonal order (cells with equal i+j), a cache-unfriendly sweep
// over a flat n*m grid; shows the order of the DP does not matter as long as
// both predecessors come first.
#include <bits/stdc++.h>
using namespace std;

const long long MOD = 1000000007LL;

int main() {
    int n, m;
    scanf("%d %d", &n, &m);
    vector<char> g((size_t)n * m);
    {
        vector<char> row(m + 2);
        for (int i = 0; i < n; i++) {
            scanf("%s", row.data());
            memcpy(&g[(size_t)i * m], row.data(), m);
        }
    }
    vector<long long> best((size_t)n * m, -1), ways((size_t)n * m, 0);
    for (int d = 0; d <= n + m - 2; d++) {
        int ilo = max(0, d - (m - 1)), ihi = min(n - 1, d);
        for (int i = ilo; i <= ihi; i++) {
            int j = d - i;
            size_t id = (size_t)i * m + j;
            if (g[id] == '#') continue;
            long long b = -1, w = 0;
            if (d == 0) b = 0, w = 1;
            if (i > 0 && best[id - m] > b) b = best[id - m], w = ways[id - m];
            if (j > 0 && best[id - 1] >= 0) {
                if (best[id - 1] > b) b = best[id - 1], w = ways[id - 1];
                else if (best[id - 1] == b) w = (w + ways[id - 1]) % MOD;
            }
            if (b >= 0) best[id] = b + (g[id] - '0'), ways[id] = w;
        }
    }
    size_t last = (size_t)n * m - 1;
    if (best[last] < 0) puts("-1");
    else printf("%lld %lld\n", best[last], ways[last]);
}
