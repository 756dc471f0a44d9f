// Breadth-first search over a compressed adjacency built by sorting all half-edges
// (O(m log m + n)), reading with synchronised iostreams (heavier constant). Each cable
// contributes a half-edge at both ends (a loop twice at its station), so the degree sum of a
// network is exactly twice its number of cables.
#include <bits/stdc++.h>
using namespace std;

int main() {
    int n, m;
    cin >> n >> m;
    vector<pair<int, int>> half;
    half.reserve(2 * m);
    for (int i = 0; i < m; i++) {
        int u, v;
        cin >> u >> v;
        half.push_back({u, v});
        half.push_back({v, u});
    }
    sort(half.begin(), half.end());
    vector<int> start(n + 2, 0);
    for (auto& h : half) start[h.first + 1]++;
    for (int v = 1; v <= n + 1; v++) start[v] += start[v - 1];
    vector<char> seen(n + 1, 0);
    vector<int> q(n);
    long long cuts = 0, lean = 0;
    for (int s = 1; s <= n; s++) {
        if (seen[s]) continue;
        seen[s] = 1;
        int head = 0, tail = 0;
        q[tail++] = s;
        long long degree_sum = 0;
        while (head < tail) {
            int u = q[head++];
            degree_sum += start[u + 1] - start[u];
            for (int i = start[u]; i < start[u + 1]; i++) {
                int w = half[i].second;
                if (!seen[w]) {
                    seen[w] = 1;
                    q[tail++] = w;
                }
            }
        }
        long long vertices = tail, e = degree_sum / 2;
        cuts += e - (vertices - 1);
        if (e == vertices - 1) lean++;
    }
    cout << cuts << ' ' << lean << '\n';
}
