#include <bits/stdc++.h>
using namespace std;

int n;
long long k;
vector<long long> a;

bool enough(long long len) {
    long long pieces = 0;
    for (long long x : a) {
        pieces += (x + len - 1) / len;  // pieces that cover this ribbon
        if (pieces >= k) return true;
    }
    return false;
}

int main() {
    scanf("%d %lld", &n, &k);
    a.resize(n);
    for (auto &x : a) scanf("%lld", &x);
    long long lo = 0, hi = *max_element(a.begin(), a.end());
    while (lo < hi) {
        long long mid = lo + (hi - lo + 1) / 2;
        if (enough(mid)) lo = mid;
        else hi = mid - 1;
    }
    printf("%lld\n", lo);
}
