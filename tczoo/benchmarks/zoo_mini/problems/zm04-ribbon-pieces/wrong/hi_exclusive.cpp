#include <bits/stdc++.h>
using namespace std;

int n;
long long k;
vector<long long> a;

bool enough(long long len) {
    long long pieces = 0;
    for (long long x : a) pieces += x / len;
    return pieces >= k;
}

int main() {
    scanf("%d %lld", &n, &k);
    a.resize(n);
    for (auto &x : a) scanf("%lld", &x);
    // invariant: lo is achievable (0 counts as "achievable"), hi is not
    long long lo = 0, hi = *max_element(a.begin(), a.end());
    while (hi - lo > 1) {
        long long mid = (lo + hi) / 2;
        if (enough(mid)) lo = mid;
        else hi = mid;
    }
    printf("%lld\n", lo);
}
