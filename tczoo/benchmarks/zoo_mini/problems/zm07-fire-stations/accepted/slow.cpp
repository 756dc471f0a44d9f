// O((n + m) log n): Dijkstra on a std::set (decrease-key by erase + insert),
// iostream input; queries answered offline by sorting them and sweeping.
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
    const long long INF = LLONG_MAX;
    vector<long long> dist(n + 1, INF);
    set<pair<long long, int>> st;
    for (int s : src) dist[s] = 0, st.insert({0, s});
    while (!st.empty()) {
        auto [d, u] = *st.begin();
        st.erase(st.begin());
        for (auto [v, w] : adj[u])
            if (d + w < dist[v]) {
                if (dist[v] != INF) st.erase({dist[v], v});
                dist[v] = d + w;
                st.insert({dist[v], v});
            }
    }
    vector<long long> fin;
    for (int v = 1; v <= n; v++)
        if (dist[v] != INF) fin.push_back(dist[v]);
    sort(fin.begin(), fin.end());
    int q;
    cin >> q;
    vector<pair<long long, int>> qs(q);
    for (int i = 0; i < q; i++) cin >> qs[i].first, qs[i].second = i;
    sort(qs.begin(), qs.end());
    vector<int> ans(q);
    size_t p = 0;
    for (auto [x, i] : qs) {
        while (p < fin.size() && fin[p] <= x) p++;
        ans[i] = p;
    }
    for (int i = 0; i < q; i++) cout << ans[i] << "\n";
}
