#include <bits/stdc++.h>
using namespace std;

int main() {
    int n, m, k;
    scanf("%d %d %d", &n, &m, &k);
    const long long INF = LLONG_MAX;
    vector<long long> dist(n + 1, INF);
    for (int i = 0; i < k; i++) {
        int s;
        scanf("%d", &s);
        dist[s] = 0;
    }
    vector<vector<pair<int, long long>>> adj(n + 1);
    for (int i = 0; i < m; i++) {
        int u, v;
        long long w;
        scanf("%d %d %lld", &u, &v, &w);
        adj[u].push_back({v, w});
        adj[v].push_back({u, w});
    }
    // textbook O(n^2) Dijkstra: pick the closest unsettled junction by a linear scan
    vector<bool> done(n + 1, false);
    for (int it = 0; it < n; it++) {
        int u = -1;
        for (int v = 1; v <= n; v++)
            if (!done[v] && dist[v] != INF && (u == -1 || dist[v] < dist[u])) u = v;
        if (u == -1) break;
        done[u] = 1;
        for (auto [v, w] : adj[u])
            if (dist[u] + w < dist[v]) dist[v] = dist[u] + w;
    }
    vector<long long> fin;
    for (int v = 1; v <= n; v++)
        if (dist[v] != INF) fin.push_back(dist[v]);
    sort(fin.begin(), fin.end());
    int q;
    scanf("%d", &q);
    while (q--) {
        long long x;
        scanf("%lld", &x);
        printf("%d\n", (int)(upper_bound(fin.begin(), fin.end(), x) - fin.begin()));
    }
}
