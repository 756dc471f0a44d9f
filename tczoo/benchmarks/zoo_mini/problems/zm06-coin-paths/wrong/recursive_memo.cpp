#include <bits/stdc++.h>
using namespace std;

const long long MOD = 1000000007;
int n, m;
vector<string> g;
vector<long long> best, ways;
vector<char> done;

// best coins from (i, j) to the target, and the number of such paths
void solve(int i, int j) {
    size_t id = (size_t)i * m + j;
    if (done[id]) return;
    done[id] = 1;
    best[id] = -1, ways[id] = 0;
    if (g[i][j] == '#') return;
    if (i == n - 1 && j == m - 1) { best[id] = g[i][j] - '0'; ways[id] = 1; return; }
    long long b = -1, w = 0;
    if (i + 1 < n) {
        solve(i + 1, j);
        size_t d = id + m;
        if (best[d] > b) b = best[d], w = ways[d];
    }
    if (j + 1 < m) {
        solve(i, j + 1);
        size_t r = id + 1;
        if (best[r] >= 0 && best[r] > b) b = best[r], w = ways[r];
        else if (best[r] >= 0 && best[r] == b) w = (w + ways[r]) % MOD;
    }
    if (b >= 0) best[id] = b + g[i][j] - '0', ways[id] = w;
}

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    cin >> n >> m;
    g.resize(n);
    for (auto &r : g) cin >> r;
    best.assign((size_t)n * m, -1);
    ways.assign((size_t)n * m, 0);
    done.assign((size_t)n * m, 0);
    solve(0, 0);
    if (best[0] < 0) cout << -1 << "\n";
    else cout << best[0] << " " << ways[0] << "\n";
}
