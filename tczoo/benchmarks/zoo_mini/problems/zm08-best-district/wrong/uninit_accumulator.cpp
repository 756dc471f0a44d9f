#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    cin >> n;
    vector<long long> a(n + 1);
    for (int i = 1; i <= n; i++) cin >> a[i];
    vector<vector<int>> g(n + 1);
    for (int i = 0; i + 1 < n; i++) {
        int u, v;
        cin >> u >> v;
        g[u].push_back(v);
        g[v].push_back(u);
    }
    int root = n;
    vector<int> order = {root}, par(n + 1, 0);
    par[root] = -1;
    for (size_t h = 0; h < order.size(); h++) {
        int v = order[h];
        for (int c : g[v])
            if (c != par[v]) par[c] = v, order.push_back(c);
    }
    vector<long long> down(n + 1), full(n + 1);
    for (int i = n - 1; i >= 0; i--) {
        int v = order[i];
        down[v] = a[v];
        for (int c : g[v])
            if (c != par[v]) down[v] += max(0LL, down[c]);
    }
    full[root] = down[root];
    for (int i = 1; i < n; i++) {
        int v = order[i];
        full[v] = down[v] + max(0LL, full[par[v]] - max(0LL, down[v]));
    }
    for (int v = 1; v <= n; v++) {
        long long gain;  // what the parent's side adds to v's own subtree
        if (v != root) gain = full[v] - down[v];
        cout << down[v] + gain << (v == n ? '\n' : ' ');
    }
}
