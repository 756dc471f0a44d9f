#include <bits/stdc++.h>
using namespace std;

const int MOD = 1000000007;

int main() {
    int n, m;
    scanf("%d %d", &n, &m);
    vector<string> g(n);
    vector<char> buf(m + 2);
    for (auto &r : g) scanf("%s", buf.data()), r = buf.data();
    if (g[0][0] == '#' || g[n - 1][m - 1] == '#') { puts("-1"); return 0; }
    vector<int> best(m, -1), cnt(m, 0);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            if (g[i][j] == '#') { best[j] = -1; cnt[j] = 0; continue; }
            int b = -1, c = 0;
            if (i == 0 && j == 0) b = 0, c = 1;
            if (best[j] > b) b = best[j], c = cnt[j];
            if (j > 0 && best[j - 1] >= 0) {
                if (best[j - 1] > b) b = best[j - 1], c = cnt[j - 1];
                else if (best[j - 1] == b) c = (c + cnt[j - 1]) % MOD;
            }
            if (b >= 0) best[j] = b + g[i][j] - '0', cnt[j] = c;
            else best[j] = -1, cnt[j] = 0;
        }
    printf("%d %d\n", best[m - 1], cnt[m - 1]);
}
