#include <bits/stdc++.h>
using namespace std;

int n;
vector<long long> a, down, ans;
vector<vector<int>> g;

void dfs1(int v, int p) {
    down[v] = a[v];
    for (int c : g[v])
        if (c != p) {
            dfs1(c, v);
            down[v] += max(0LL, down[c]);
        }
}

void dfs2(int v, int p) {
    for (int c : g[v])
        if (c != p) {
            ans[c] = down[c] + max(0LL, ans[v] - max(0LL, down[c]));
            dfs2(c, v);
        }
}

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    cin >> n;
    a.resize(n + 1);
    for (int i = 1; i <= n; i++) cin >> a[i];
    g.resize(n + 1);
    for (int i = 0; i + 1 < n; i++) {
        int u, v;
        cin >> u >> v;
        g[u].push_back(v);
        g[v].push_back(u);
    }
    down.resize(n + 1);
    ans.resize(n + 1);
    dfs1(1, 0);
    ans[1] = down[1];
    dfs2(1, 0);
    for (int v = 1; v <= n; v++) cout << ans[v] << (v == n ? '\n' : ' ');
}
