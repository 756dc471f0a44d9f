#include <bits/stdc++.h>
using namespace std;

int parent_[200005], sz[200005];
long long edges_[200005];
int find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
}

int main() {
    int n, m;
    scanf("%d %d", &n, &m);
    for (int v = 1; v <= n; v++) parent_[v] = v, sz[v] = 1;
    vector<pair<int, int>> e(m);
    for (auto& [u, v] : e) {
        scanf("%d %d", &u, &v);
        int a = find(u), b = find(v);
        if (a == b) continue;
        if (sz[a] < sz[b]) swap(a, b);
        parent_[b] = a;
        sz[a] += sz[b];
    }
    for (auto [u, v] : e) edges_[find(u)]++;
    long long networks = 0, lean = 0;
    for (int v = 1; v <= n; v++)
        if (find(v) == v) {
            networks++;
            if (edges_[v] > 0 && edges_[v] == sz[v] - 1) lean++;  // a tree has cables
        }
    printf("%lld %lld\n", (long long)m - n + networks, lean);
}
