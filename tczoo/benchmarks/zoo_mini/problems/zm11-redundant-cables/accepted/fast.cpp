// Disjoint set union (union by size, path halving). A network with V stations and E cables needs
// E - (V - 1) cuts, and is lean iff E == V - 1; summed over networks the cuts are m - n + (#networks).
#include <bits/stdc++.h>
using namespace std;

vector<int> parent_, sz;

int find(int x) {
    while (parent_[x] != x) {
        parent_[x] = parent_[parent_[x]];
        x = parent_[x];
    }
    return x;
}

int main() {
    int n, m;
    if (scanf("%d %d", &n, &m) != 2) return 0;
    parent_.resize(n + 1);
    sz.assign(n + 1, 1);
    iota(parent_.begin(), parent_.end(), 0);
    vector<int> eu(m), ev(m);
    for (int i = 0; i < m; i++) {
        scanf("%d %d", &eu[i], &ev[i]);
        int a = find(eu[i]), b = find(ev[i]);
        if (a == b) continue;
        if (sz[a] < sz[b]) swap(a, b);
        parent_[b] = a;
        sz[a] += sz[b];
    }
    vector<long long> edges(n + 1, 0);
    for (int i = 0; i < m; i++) edges[find(eu[i])]++;
    long long networks = 0, lean = 0;
    for (int v = 1; v <= n; v++) {
        if (find(v) != v) continue;
        networks++;
        if (edges[v] == sz[v] - 1) lean++;
    }
    printf("%lld %lld\n", (long long)m - n + networks, lean);
}
