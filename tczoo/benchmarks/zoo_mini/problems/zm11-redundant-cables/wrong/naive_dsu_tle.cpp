#include <bits/stdc++.h>
using namespace std;

int parent_[200005];
int find(int x) {
    while (parent_[x] != x) x = parent_[x];
    return x;
}

int main() {
    int n, m;
    scanf("%d %d", &n, &m);
    for (int v = 1; v <= n; v++) parent_[v] = v;
    vector<pair<int, int>> e(m);
    for (auto& [u, v] : e) {
        scanf("%d %d", &u, &v);
        int a = find(u), b = find(v);
        if (a != b) parent_[a] = b;
    }
    vector<long long> edges(n + 1, 0), verts(n + 1, 0);
    for (auto [u, v] : e) edges[find(u)]++;
    for (int v = 1; v <= n; v++) verts[find(v)]++;
    long long networks = 0, lean = 0;
    for (int v = 1; v <= n; v++)
        if (parent_[v] == v) {
            networks++;
            if (edges[v] == verts[v] - 1) lean++;
        }
    printf("%lld %lld\n", (long long)m - n + networks, lean);
}
