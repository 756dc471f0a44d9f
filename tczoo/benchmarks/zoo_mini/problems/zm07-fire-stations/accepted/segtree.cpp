// O((n + m) log n): Dijkstra where the frontier is a segment tree of
// tentative distances indexed by vertex (argmin query, point update),
// queries answered by binary search written by hand.
#include <bits/stdc++.h>
using namespace std;

const long long INF = LLONG_MAX;
int sz;
vector<long long> val;
vector<int> who;

void setv(int v, long long d) {
    int p = v + sz;
    val[p] = d;
    for (p >>= 1; p; p >>= 1) {
        int l = 2 * p, r = l + 1;
        if (val[l] <= val[r]) val[p] = val[l], who[p] = who[l];
        else val[p] = val[r], who[p] = who[r];
    }
}

int main() {
    int n, m, k;
    if (scanf("%d %d %d", &n, &m, &k) != 3) return 0;
    sz = 1;
    while (sz < n + 1) sz <<= 1;
    val.assign(2 * sz, INF);
    who.assign(2 * sz, 0);
    for (int i = 0; i < sz; i++) who[sz + i] = i;
    for (int p = sz - 1; p; p--) who[p] = who[2 * p];
    vector<long long> dist(n + 1, INF);
    vector<char> done(n + 1, 0);
    for (int i = 0; i < k; i++) {
        int s;
        scanf("%d", &s);
        dist[s] = 0;
        setv(s, 0);
    }
    vector<vector<pair<int, long long>>> adj(n + 1);
    for (int i = 0; i < m; i++) {
        int u, v;
        long long w;
        scanf("%d %d %lld", &u, &v, &w);
        adj[u].push_back({v, w});
        adj[v].push_back({u, w});
    }
    while (val[1] != INF) {
        int u = who[1];
        long long d = val[1];
        done[u] = 1;
        setv(u, INF);
        for (auto [v, w] : adj[u])
            if (!done[v] && d + w < dist[v]) {
                dist[v] = d + w;
                setv(v, dist[v]);
            }
    }
    vector<long long> fin;
    for (int v = 1; v <= n; v++)
        if (dist[v] != INF) fin.push_back(dist[v]);
    sort(fin.begin(), fin.end());
    int q;
    scanf("%d", &q);
    for (int i = 0; i < q; i++) {
        long long x;
        scanf("%lld", &x);
        int lo = 0, hi = fin.size();  // first index with fin[idx] > x
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (fin[mid] <= x) lo = mid + 1;
            else hi = mid;
        }
        printf("%d\n", lo);
    }
}
