#include <bits/stdc++.h>
using namespace std;
typedef int T;
int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    cin >> n;
    vector<T> a(n + 1);
    for (int i = 1; i <= n; i++) cin >> a[i];
    vector<vector<int>> g(n + 1);
    for (int i = 0; i + 1 < n; i++) {
        int u, v;
        cin >> u >> v;
        g[u].push_back(v);
        g[v].push_back(u);
    }
    int root = 1;
    vector<int> order = {root}, par(n + 1, 0);
    par[root] = -1;
    for (size_t h = 0; h < order.size(); h++) {
        int v = order[h];
        for (int c : g[v])
            if (c != par[v]) par[c] = v, order.push_back(c);
    }
    vector<T> down(n + 1), ans(n + 1);
    for (int i = (int)order.size() - 1; i >= 0; i--) {
        int v = order[i];
        down[v] = a[v];
        for (int c : g[v])
            if (c != par[v]) down[v] += max((T)0, down[c]);
    }
    ans[root] = down[root];
    for (size_t i = 1; i < order.size(); i++) {
        int v = order[i];
        ans[v] = down[v] + max((T)0, ans[par[v]] - max((T)0, down[v]));
    }
    for (int v = 1; v <= n; v++) cout << ans[v] << (v == n ? '\n' : ' ');
}
