#include <bits/stdc++.h>
using namespace std;
typedef long long DW;
const DW INF = 1000000000000000000LL;  // 1e18: no distance gets near it
int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n, m, k;
    cin >> n >> m >> k;
    vector<int> src(k);
    for (auto &s : src) cin >> s;
    vector<vector<pair<int, DW>>> adj(n + 1);
    for (int i = 0; i < m; i++) {
        int u, v;
        DW w;
        cin >> u >> v >> w;
        adj[u].push_back({v, w});
        adj[v].push_back({u, w});
    }
    vector<DW> dist(n + 1, INF);
    priority_queue<pair<DW, int>, vector<pair<DW, int>>, greater<>> pq;
    for (int s : src) dist[s] = 0, pq.push({0, s});
    while (!pq.empty()) {
        auto [d, u] = pq.top();
        pq.pop();
        if (d > dist[u]) continue;
        for (auto [v, w] : adj[u])
            if (d + w < dist[v]) {
                dist[v] = d + w;
                pq.push({dist[v], v});
            }
    }
    vector<DW> fin;
    for (int v = 1; v <= n; v++) fin.push_back(dist[v]);  // unprotected ones sit at INF, beyond every query
    sort(fin.begin(), fin.end());
    int q;
    cin >> q;
    while (q--) {
        long long x;
        cin >> x;
        cout << upper_bound(fin.begin(), fin.end(), x) - fin.begin() << "\n";
    }
}
