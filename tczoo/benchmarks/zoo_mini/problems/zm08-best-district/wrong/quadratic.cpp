#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    scanf("%d", &n);
    vector<long long> a(n + 1);
    for (int i = 1; i <= n; i++) scanf("%lld", &a[i]);
    vector<vector<int>> g(n + 1);
    for (int i = 0; i + 1 < n; i++) {
        int u, v;
        scanf("%d %d", &u, &v);
        g[u].push_back(v);
        g[v].push_back(u);
    }
    // root the tree at every town in turn and take the best district with that top
    vector<int> order(n), par(n + 1);
    vector<long long> down(n + 1);
    for (int r = 1; r <= n; r++) {
        int cnt = 0;
        order[cnt++] = r;
        par[r] = 0;
        for (int h = 0; h < cnt; h++) {
            int v = order[h];
            for (int c : g[v])
                if (c != par[v]) par[c] = v, order[cnt++] = c;
        }
        for (int i = n - 1; i >= 0; i--) {
            int v = order[i];
            down[v] = a[v];
            for (int c : g[v])
                if (c != par[v]) down[v] += max(0LL, down[c]);
        }
        printf("%lld%c", down[r], r == n ? '\n' : ' ');
    }
}
