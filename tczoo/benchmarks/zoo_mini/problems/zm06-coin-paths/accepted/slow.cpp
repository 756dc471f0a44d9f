// O(n*m): full n x m tables of 64-bit values (about 16 MB), iostream input.
#include <bits/stdc++.h>
using namespace std;

const long long MOD = 1000000007LL;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n, m;
    cin >> n >> m;
    vector<string> g(n);
    for (auto &r : g) cin >> r;
    vector<vector<long long>> best(n, vector<long long>(m, -1)), ways(n, vector<long long>(m, 0));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            if (g[i][j] == '#') continue;
            long long v = g[i][j] - '0';
            if (i == 0 && j == 0) { best[i][j] = v; ways[i][j] = 1; continue; }
            long long b = -1, w = 0;
            if (i > 0 && best[i - 1][j] >= 0) { b = best[i - 1][j]; w = ways[i - 1][j]; }
            if (j > 0 && best[i][j - 1] >= 0) {
                if (best[i][j - 1] > b) { b = best[i][j - 1]; w = ways[i][j - 1]; }
                else if (best[i][j - 1] == b) w = (w + ways[i][j - 1]) % MOD;
            }
            if (b >= 0) { best[i][j] = b + v; ways[i][j] = w; }
        }
    if (best[n - 1][m - 1] < 0) cout << -1 << "\n";
    else cout << best[n - 1][m - 1] << " " << ways[n - 1][m - 1] << "\n";
}
