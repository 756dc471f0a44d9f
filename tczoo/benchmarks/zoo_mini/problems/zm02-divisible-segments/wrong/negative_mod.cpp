#include <bits/stdc++.h>
using namespace std;

int main() {
    int t;
    scanf("%d", &t);
    while (t--) {
        int n;
        long long k;
        scanf("%d %lld", &n, &k);
        map<long long, long long> seen;
        seen[0] = 1;
        long long s = 0, ans = 0;
        for (int i = 0; i < n; i++) {
            long long a;
            scanf("%lld", &a);
            s += a;
            ans += seen[s % k];
            seen[s % k]++;
        }
        printf("%lld\n", ans);
    }
}
