#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n, m, k;
    cin >> n >> m >> k;
    vector<int> src(k);
    for (auto &s : src) cin >> s;
    vector<vector<pair<int, long long>>> adj(n + 1);
    for (int i = 0; i < m; i++) {
        int u, v;
        long long w;
        cin >> u >> v >> w;
        adj[u].push_back({v, w});
        adj[v].push_back({u, w});
    }
    // every junction is reached from the station that gets to it first
    vector<long long> dist(n + 1, -1);
    queue<int> bq;
    for (int s : src) dist[s] = 0, bq.push(s);
    while (!bq.empty()) {
        int u = bq.front();
        bq.pop();
        for (auto [v, w] : adj[u])
            if (dist[v] == -1) {
                dist[v] = dist[u] + w;
                bq.push(v);
            }
    }
    vector<long long> fin;
    for (int v = 1; v <= n; v++)
        if (dist[v] != -1) fin.push_back(dist[v]);
    sort(fin.begin(), fin.end());
    int q;
    cin >> q;
    while (q--) {
        long long x;
        cin >> x;
        cout << upper_bound(fin.begin(), fin.end(), x) - fin.begin() << "\n";
    }
}
