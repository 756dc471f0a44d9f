// O(n log n): explicit-stack DFS; the parent side of every child is computed
// from prefix and suffix sums of the positive contributions of its siblings.
// Children are sorted by label first, which only costs time; iostream I/O.
#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    cin >> n;
    vector<long long> a(n + 1);
    for (int i = 1; i <= n; i++) cin >> a[i];
    vector<vector<int>> g(n + 1);
    for (int i = 0; i + 1 < n; i++) {
        int u, v;
        cin >> u >> v;
        g[u].push_back(v);
        g[v].push_back(u);
    }
    vector<int> par(n + 1, 0), order;
    vector<vector<int>> ch(n + 1);
    vector<int> st = {1};
    par[1] = -1;
    while (!st.empty()) {
        int v = st.back();
        st.pop_back();
        order.push_back(v);
        for (int c : g[v])
            if (c != par[v]) par[c] = v, ch[v].push_back(c), st.push_back(c);
    }
    for (int v = 1; v <= n; v++) sort(ch[v].begin(), ch[v].end());
    vector<long long> down(n + 1);
    for (int i = n - 1; i >= 0; i--) {
        int v = order[i];
        down[v] = a[v];
        for (int c : ch[v]) down[v] += max(0LL, down[c]);
    }
    vector<long long> up(n + 1, 0);  // best extension through the parent, >= 0
    for (int v : order) {
        int k = ch[v].size();
        vector<long long> pre(k + 1, 0), suf(k + 1, 0);
        for (int i = 0; i < k; i++) pre[i + 1] = pre[i] + max(0LL, down[ch[v][i]]);
        for (int i = k - 1; i >= 0; i--) suf[i] = suf[i + 1] + max(0LL, down[ch[v][i]]);
        for (int i = 0; i < k; i++) up[ch[v][i]] = max(0LL, a[v] + up[v] + pre[i] + suf[i + 1]);
    }
    for (int v = 1; v <= n; v++) cout << down[v] + up[v] << (v == n ? '\n' : ' ');
}
