#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    long long k;
    scanf("%d %lld", &n, &k);
    long long total = 0, mx = 0;
    for (int i = 0; i < n; i++) {
        long long x;
        scanf("%lld", &x);
        total += x;
        mx = max(mx, x);
    }
    // share the total length evenly between the k pieces; a piece cannot be longer than
    // the longest ribbon
    printf("%lld\n", min(mx, total / k));
}
