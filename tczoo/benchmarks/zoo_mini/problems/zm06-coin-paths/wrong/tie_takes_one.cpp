#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n, m;
    cin >> n >> m;
    vector<string> g(n);
    for (auto &r : g) cin >> r;
    vector<long long> best(m, -1), cnt(m, 0);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            if (g[i][j] == '#') { best[j] = -1; cnt[j] = 0; continue; }
            long long b = -1, c = 0;
            if (i == 0 && j == 0) b = 0, c = 1;
            if (i > 0 && best[j] >= 0) b = best[j], c = cnt[j];
            if (j > 0 && best[j - 1] > b) b = best[j - 1], c = cnt[j - 1];
            if (b < 0) { best[j] = -1; cnt[j] = 0; }
            else { best[j] = b + g[i][j] - '0'; cnt[j] = c; }
        }
    if (best[m - 1] < 0) cout << -1 << "\n";
    else cout << best[m - 1] << " " << cnt[m - 1] << "\n";
}
