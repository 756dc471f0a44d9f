#include <bits/stdc++.h>
using namespace std;

int n, m, k;
vector<vector<pair<int, long long>>> adj;

vector<long long> dijkstra(int s) {
    vector<long long> d(n + 1, LLONG_MAX);
    priority_queue<pair<long long, int>, vector<pair<long long, int>>, greater<>> pq;
    d[s] = 0;
    pq.push({0, s});
    while (!pq.empty()) {
        auto [du, u] = pq.top();
        pq.pop();
        if (du > d[u]) continue;
        for (auto [v, w] : adj[u])
            if (du + w < d[v]) d[v] = du + w, pq.push({d[v], v});
    }
    return d;
}

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    cin >> n >> m >> k;
    vector<int> src(k);
    for (auto &s : src) cin >> s;
    adj.assign(n + 1, {});
    for (int i = 0; i < m; i++) {
        int u, v;
        long long w;
        cin >> u >> v >> w;
        adj[u].push_back({v, w});
        adj[v].push_back({u, w});
    }
    // nearest station = minimum over one Dijkstra per station
    vector<long long> best(n + 1, LLONG_MAX);
    for (int s : src) {
        auto d = dijkstra(s);
        for (int v = 1; v <= n; v++) best[v] = min(best[v], d[v]);
    }
    vector<long long> fin;
    for (int v = 1; v <= n; v++)
        if (best[v] != LLONG_MAX) fin.push_back(best[v]);
    sort(fin.begin(), fin.end());
    int q;
    cin >> q;
    while (q--) {
        long long x;
        cin >> x;
        cout << upper_bound(fin.begin(), fin.end(), x) - fin.begin() << "\n";
    }
}
