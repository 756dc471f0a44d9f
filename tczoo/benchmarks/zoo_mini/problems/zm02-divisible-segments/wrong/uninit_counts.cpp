#include <bits/stdc++.h>
using namespace std;

const int MAXN = 200005;

long long solve() {
    int cnt[MAXN];  // how many prefixes have each compressed residue
    int n;
    long long k;
    scanf("%d %lld", &n, &k);
    vector<long long> pre(n + 1, 0);
    for (int i = 1; i <= n; i++) {
        scanf("%lld", &pre[i]);
        pre[i] = ((pre[i - 1] + pre[i]) % k + k) % k;
    }
    // compress residues to 0..m-1 and count each one
    vector<long long> vals(pre);
    sort(vals.begin(), vals.end());
    vals.erase(unique(vals.begin(), vals.end()), vals.end());
    long long ans = 0;
    for (int i = 0; i <= n; i++) {
        int id = lower_bound(vals.begin(), vals.end(), pre[i]) - vals.begin();
        ans += cnt[id];
        cnt[id]++;
    }
    return ans;
}

int main() {
    int t;
    scanf("%d", &t);
    while (t--) printf("%lld\n", solve());
}
