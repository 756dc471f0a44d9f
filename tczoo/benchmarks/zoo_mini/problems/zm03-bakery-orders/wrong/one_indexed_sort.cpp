#include <bits/stdc++.h>
using namespace std;

const int MAXN = 200005;
long long t[MAXN], w[MAXN];
int id[MAXN];

int main() {
    int n;
    scanf("%d", &n);
    for (int i = 1; i <= n; i++) {
        scanf("%lld %lld", &t[i], &w[i]);
        id[i] = i;
    }
    sort(id, id + n, [](int a, int b) { return t[a] * w[b] < t[b] * w[a]; });
    long long now = 0, total = 0;
    for (int i = 1; i <= n; i++) {
        now += t[id[i]];
        total += w[id[i]] * now;
    }
    printf("%lld\n", total);
}
