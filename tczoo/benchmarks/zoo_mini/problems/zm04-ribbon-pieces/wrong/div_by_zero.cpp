#include <bits/stdc++.h>
using namespace std;

int n;
long long k;
vector<long long> a;

bool enough(long long len) {
    long long pieces = 0;
    for (long long x : a) {
        pieces += x / len;
        if (pieces >= k) return true;
    }
    return false;
}

int main() {
    scanf("%d %lld", &n, &k);
    a.resize(n);
    for (auto &x : a) scanf("%lld", &x);
    // find the first length that is NOT enough; the answer is the one before it
    long long lo = 0, hi = *max_element(a.begin(), a.end()) + 1;
    while (lo < hi) {
        long long mid = (lo + hi) / 2;
        if (enough(mid)) lo = mid + 1;
        else hi = mid;
    }
    printf("%lld\n", lo - 1);
}
