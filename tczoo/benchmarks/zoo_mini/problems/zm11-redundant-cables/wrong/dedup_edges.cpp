#include <bits/stdc++.h>
using namespace std;

int parent_[200005], sz[200005];
int find(int x) { return parent_[x] == x ? x : parent_[x] = find(parent_[x]); }

int main() {
    int n, m;
    scanf("%d %d", &n, &m);
    set<pair<int, int>> cables;  // the same cable listed twice is the same connection
    for (int i = 0; i < m; i++) {
        int u, v;
        scanf("%d %d", &u, &v);
        cables.insert({min(u, v), max(u, v)});
    }
    for (int v = 1; v <= n; v++) parent_[v] = v, sz[v] = 1;
    for (auto [u, v] : cables) {
        int a = find(u), b = find(v);
        if (a == b) continue;
        if (sz[a] < sz[b]) swap(a, b);
        parent_[b] = a;
        sz[a] += sz[b];
    }
    vector<long long> edges(n + 1, 0);
    for (auto [u, v] : cables) edges[find(u)]++;
    long long networks = 0, lean = 0;
    for (int v = 1; v <= n; v++)
        if (find(v) == v) {
            networks++;
            if (edges[v] == sz[v] - 1) lean++;
        }
    printf("%lld %lld\n", (long long)cables.size() - n + networks, lean);
}
