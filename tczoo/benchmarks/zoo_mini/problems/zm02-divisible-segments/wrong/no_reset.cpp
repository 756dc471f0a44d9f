#include <bits/stdc++.h>
using namespace std;

map<long long, long long> seen;

int main() {
    int t;
    scanf("%d", &t);
    while (t--) {
        int n;
        long long k;
        scanf("%d %lld", &n, &k);
        seen[0]++;  // the empty prefix
        long long s = 0, ans = 0;
        for (int i = 0; i < n; i++) {
            long long a;
            scanf("%lld", &a);
            s = ((s + a) % k + k) % k;
            ans += seen[s];
            seen[s]++;
        }
        printf("%lld\n", ans);
    }
}
