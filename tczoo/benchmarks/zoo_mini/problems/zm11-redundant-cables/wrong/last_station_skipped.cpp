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
    vector<char> seen(n + 1, 0);
    long long networks = 0, lean = 0;
    for (int s = 1; s < n; s++) {
        if (seen[s]) continue;
        seen[s] = 1;
        networks++;
        queue<int> q;
        q.push(s);
        long long vertices = 0, degree_sum = 0;
        while (!q.empty()) {
            int u = q.front();
            q.pop();
            vertices++;
            degree_sum += adj[u].size();
            for (int w : adj[u])
                if (!seen[w]) seen[w] = 1, q.push(w);
        }
        if (degree_sum / 2 == vertices - 1) lean++;
    }
    printf("%lld %lld\n", (long long)m - n + networks, lean);
}
