#include <bits/stdc++.h>
using namespace std;
typedef long long DW;
const DW INF = LLONG_MAX;
int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n, m, k;
    cin >> n >> m >> k;
    vector<int> src(k);
    for (auto &s : src) cin >> s;
    // edge list plus, per junction, the ids of its roads
    vector<int> eu(m), ev(m);
    vector<DW> ew(m);
    vector<vector<int>> inc(n + 1);
    for (int i = 0; i < m; i++) {
        cin >> eu[i] >> ev[i] >> ew[i];
        inc[eu[i]].push_back(i);
        inc[ev[i]].push_back(i);
    }
    vector<DW> dist(n + 1, INF);
    priority_queue<pair<DW, int>, vector<pair<DW, int>>, greater<>> pq;
    for (int s : src) dist[s] = 0, pq.push({0, s});
    while (!pq.empty()) {
        auto [d, u] = pq.top();
        pq.pop();
        
        for (int e : inc[u]) {
            int v = eu[e] == u ? ev[e] : eu[e];
            if (d + ew[e] < dist[v]) {
                dist[v] = d + ew[e];
                pq.push({dist[v], v});
            }
        }
    }
    vector<DW> fin;
    for (int v = 1; v <= n; v++)
        if (dist[v] != INF) fin.push_back(dist[v]);
    sort(fin.begin(), fin.end());
    int q;
    cin >> q;
    while (q--) {
        long long x;
        cin >> x;
        cout << upper_bound(fin.begin(), fin.end(), x) - fin.begin() << "\n";
    }
}
