// O((n + m) log n + q log n): multi-source Dijkstra (binary heap, stale entries
// skipped), then each query is an upper_bound over the sorted finite distances.
#include <bits/stdc++.h>
using namespace std;

static char buf[1 << 25];
size_t bl, bp;
long long rd() {
    while (bp < bl && (buf[bp] < '0' || buf[bp] > '9')) bp++;
    long long x = 0;
    while (bp < bl && buf[bp] >= '0' && buf[bp] <= '9') x = x * 10 + (buf[bp++] - '0');
    return x;
}

int main() {
    bl = fread(buf, 1, sizeof(buf), stdin);
    int n = rd(), m = rd(), k = rd();
    const long long INF = LLONG_MAX;
    vector<long long> dist(n + 1, INF);
    priority_queue<pair<long long, int>, vector<pair<long long, int>>, greater<>> pq;
    for (int i = 0; i < k; i++) {
        int s = rd();
        dist[s] = 0;
        pq.push({0, s});
    }
    vector<int> head(n + 1, -1), nxt(2 * m), to(2 * m);
    vector<long long> wt(2 * m);
    for (int i = 0; i < m; i++) {
        int u = rd(), v = rd();
        long long w = rd();
        to[2 * i] = v, wt[2 * i] = w, nxt[2 * i] = head[u], head[u] = 2 * i;
        to[2 * i + 1] = u, wt[2 * i + 1] = w, nxt[2 * i + 1] = head[v], head[v] = 2 * i + 1;
    }
    while (!pq.empty()) {
        auto [d, u] = pq.top();
        pq.pop();
        if (d != dist[u]) continue;
        for (int e = head[u]; e != -1; e = nxt[e])
            if (d + wt[e] < dist[to[e]]) {
                dist[to[e]] = d + wt[e];
                pq.push({dist[to[e]], to[e]});
            }
    }
    vector<long long> fin;
    fin.reserve(n);
    for (int v = 1; v <= n; v++)
        if (dist[v] != INF) fin.push_back(dist[v]);
    sort(fin.begin(), fin.end());
    int q = rd();
    string out;
    out.reserve(8 * q);
    for (int i = 0; i < q; i++) {
        long long x = rd();
        out += to_string(upper_bound(fin.begin(), fin.end(), x) - fin.begin());
        out += '\n';
    }
    fwrite(out.data(), 1, out.size(), stdout);
}
