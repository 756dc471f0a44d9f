#include <bits/stdc++.h>
using namespace std;

const long long MOD = 1000000007;

int main() {
    int n, m;
    scanf("%d %d", &n, &m);
    vector<string> g(n);
    vector<char> buf(m + 2);
    for (auto &r : g) scanf("%s", buf.data()), r = buf.data();
    vector<vector<long long>> best(n, vector<long long>(m, -1)), ways(n, vector<long long>(m, 0));
    if (g[0][0] != '#') best[0][0] = 0, ways[0][0] = 1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            if ((i == 0 && j == 0) || g[i][j] == '#') continue;
            long long b = -1, w = 0;
            if (i > 0 && best[i - 1][j] >= 0) b = best[i - 1][j], w = ways[i - 1][j];
            if (j > 0 && best[i][j - 1] >= 0) {
                if (best[i][j - 1] > b) b = best[i][j - 1], w = ways[i][j - 1];
                else if (best[i][j - 1] == b) w = (w + ways[i][j - 1]) % MOD;
            }
            if (b >= 0) best[i][j] = b + g[i][j] - '0', ways[i][j] = w;
        }
    if (best[n - 1][m - 1] < 0) puts("-1");
    else printf("%lld %lld\n", best[n - 1][m - 1], ways[n - 1][m - 1]);
}
