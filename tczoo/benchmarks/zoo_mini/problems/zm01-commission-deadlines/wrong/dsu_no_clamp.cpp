#include <bits/stdc++.h>
using namespace std;

const int MAXN = 200005;
int par[MAXN];
pair<long long, int> a[MAXN];

int findFree(int x) {
    while (par[x] != x) {
        par[x] = par[par[x]];
        x = par[x];
    }
    return x;
}

int main() {
    int n;
    scanf("%d", &n);
    for (int i = 0; i < n; i++) scanf("%d %lld", &a[i].second, &a[i].first);
    sort(a, a + n, greater<pair<long long, int>>());
    for (int i = 0; i < MAXN; i++) par[i] = i;
    long long total = 0;
    for (int i = 0; i < n; i++) {
        int day = findFree(a[i].second);
        if (day > 0) {
            total += a[i].first;
            par[day] = day - 1;
        }
    }
    printf("%lld\n", total);
}
