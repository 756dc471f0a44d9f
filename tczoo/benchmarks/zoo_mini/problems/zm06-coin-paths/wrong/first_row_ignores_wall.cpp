#include <bits/stdc++.h>
using namespace std;

const long long MOD = 1000000007;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n, m;
    cin >> n >> m;
    vector<string> g(n);
    for (auto &r : g) cin >> r;
    if (g[0][0] == '#' || g[n - 1][m - 1] == '#') { cout << -1 << "\n"; return 0; }
    vector<vector<long long>> best(n, vector<long long>(m, -1)), ways(n, vector<long long>(m, 0));
    best[0][0] = g[0][0] - '0', ways[0][0] = 1;
    // the first row and column can only be reached in one way
    for (int j = 1; j < m; j++)
        if (g[0][j] != '#') best[0][j] = best[0][j - 1] + g[0][j] - '0', ways[0][j] = 1;
    for (int i = 1; i < n; i++)
        if (g[i][0] != '#') best[i][0] = best[i - 1][0] + g[i][0] - '0', ways[i][0] = 1;
    for (int i = 1; i < n; i++)
        for (int j = 1; j < m; j++) {
            if (g[i][j] == '#') continue;
            long long b = -1, w = 0;
            if (best[i - 1][j] >= 0) b = best[i - 1][j], w = ways[i - 1][j];
            if (best[i][j - 1] >= 0) {
                if (best[i][j - 1] > b) b = best[i][j - 1], w = ways[i][j - 1];
                else if (best[i][j - 1] == b) w = (w + ways[i][j - 1]) % MOD;
            }
            if (b >= 0) best[i][j] = b + g[i][j] - '0', ways[i][j] = w;
        }
    if (best[n - 1][m - 1] < 0) cout << -1 << "\n";
    else cout << best[n - 1][m - 1] << " " << ways[n - 1][m - 1] << "\n";
}
