// O(n): rerooting DP without recursion. Root at 1, BFS order;
// down[v] = a_v + sum over children of max(0, down[c]) (best district with top v),
// up[c] = max(0, ans[p] - max(0, down[c])) (best extension of c's district through p),
// ans[v] = down[v] + up[v].
#include <bits/stdc++.h>
using namespace std;

static char buf[1 << 24];
size_t bl, bp;
long long rd() {
    while (bp < bl && buf[bp] != '-' && (buf[bp] < '0' || buf[bp] > '9')) bp++;
    bool neg = false;
    if (buf[bp] == '-') neg = true, bp++;
    long long x = 0;
    while (bp < bl && buf[bp] >= '0' && buf[bp] <= '9') x = x * 10 + (buf[bp++] - '0');
    return neg ? -x : x;
}

int main() {
    bl = fread(buf, 1, sizeof(buf), stdin);
    int n = rd();
    vector<long long> a(n + 1);
    for (int i = 1; i <= n; i++) a[i] = rd();
    vector<int> eu(n - 1), ev(n - 1), deg(n + 2, 0);
    for (int i = 0; i + 1 < n; i++) eu[i] = rd(), ev[i] = rd(), deg[eu[i]]++, deg[ev[i]]++;
    vector<int> start(n + 2, 0), adj(2 * (n - 1));
    for (int v = 1; v <= n; v++) start[v + 1] = start[v] + deg[v];
    vector<int> fill(start.begin(), start.end());
    for (int i = 0; i + 1 < n; i++) adj[fill[eu[i]]++] = ev[i], adj[fill[ev[i]]++] = eu[i];
    vector<int> order, par(n + 1, 0);
    order.reserve(n);
    order.push_back(1);
    par[1] = -1;
    for (size_t h = 0; h < order.size(); h++) {
        int v = order[h];
        for (int e = start[v]; e < start[v + 1]; e++)
            if (adj[e] != par[v]) par[adj[e]] = v, order.push_back(adj[e]);
    }
    vector<long long> down(a), ans(n + 1);
    for (int i = n - 1; i > 0; i--) {
        int v = order[i];
        down[par[v]] += max(0LL, down[v]);
    }
    ans[1] = down[1];
    for (int i = 1; i < n; i++) {
        int v = order[i];
        ans[v] = down[v] + max(0LL, ans[par[v]] - max(0LL, down[v]));
    }
    string out;
    out.reserve(16 * (size_t)n);
    for (int v = 1; v <= n; v++) {
        out += to_string(ans[v]);
        out += v == n ? '\n' : ' ';
    }
    fwrite(out.data(), 1, out.size(), stdout);
}
