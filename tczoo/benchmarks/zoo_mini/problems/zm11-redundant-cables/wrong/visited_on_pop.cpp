#include <bits/stdc++.h>
using namespace std;

int main() {
    int n, m;
    scanf("%d %d", &n, &m);
    vector<vector<int>> adj(n + 1);
    for (int i = 0; i < m; i++) {
        int u, v;
        scanf("%d %d", &u, &v);
        adj[u].push_back(v);
        adj[v].push_back(u);
    }
    vector<char> done(n + 1, 0);
    long long networks = 0, lean = 0;
    for (int s = 1; s <= n; s++) {
        if (done[s]) continue;
        networks++;
        queue<int> q;
        q.push(s);
        long long vertices = 1, degree_sum = 0;
        while (!q.empty()) {
            int u = q.front();
            q.pop();
            if (done[u]) continue;
            done[u] = 1;
            degree_sum += adj[u].size();
            for (int w : adj[u])
                if (!done[w]) {
                    q.push(w);
                    vertices++;
                }
        }
        if (degree_sum / 2 == vertices - 1) lean++;
    }
    printf("%lld %lld\n", (long long)m - n + networks, lean);
}
