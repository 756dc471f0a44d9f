#include <bits/stdc++.h>
using namespace std;

int parent_[200005], sz[200005];
bool cyclic[200005];
int find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
}

int main() {
    int n, m;
    scanf("%d %d", &n, &m);
    for (int v = 1; v <= n; v++) parent_[v] = v, sz[v] = 1;
    long long cuts = 0;
    for (int i = 0; i < m; i++) {
        int u, v;
        scanf("%d %d", &u, &v);
        if (u == v) {  // a loop is always cut, but it does not close a cycle between stations
            cuts++;
            continue;
        }
        int a = find(u), b = find(v);
        if (a == b) {
            cuts++;
            cyclic[a] = true;
            continue;
        }
        if (sz[a] < sz[b]) swap(a, b);
        parent_[b] = a;
        sz[a] += sz[b];
        cyclic[a] = cyclic[a] || cyclic[b];
    }
    long long lean = 0;
    for (int v = 1; v <= n; v++)
        if (find(v) == v && !cyclic[v]) lean++;
    printf("%lld %lld\n", cuts, lean);
}
