#include <bits/stdc++.h>
using namespace std;

int n;
long long k;
int a[200005];

bool enough(int len) {
    int pieces = 0;
    for (int i = 0; i < n; i++) pieces += a[i] / len;
    return pieces >= k;
}

int main() {
    scanf("%d %lld", &n, &k);
    for (int i = 0; i < n; i++) scanf("%d", &a[i]);
    int lo = 0, hi = *max_element(a, a + n);
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (enough(mid)) lo = mid;
        else hi = mid - 1;
    }
    printf("%d\n", lo);
}
