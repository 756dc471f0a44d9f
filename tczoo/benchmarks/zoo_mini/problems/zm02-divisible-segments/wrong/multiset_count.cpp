#include <bits/stdc++.h>
using namespace std;

int main() {
    int t;
    scanf("%d", &t);
    while (t--) {
        int n;
        long long k;
        scanf("%d %lld", &n, &k);
        multiset<long long> seen;
        seen.insert(0);
        long long s = 0, ans = 0;
        for (int i = 0; i < n; i++) {
            long long a;
            scanf("%lld", &a);
            s = ((s + a) % k + k) % k;
            ans += seen.count(s);
            seen.insert(s);
        }
        printf("%lld\n", ans);
    }
}
