// Binary search on L as well, but with a heavy constant: input parsed through a
// stringstream, the search always covers the whole range [0, 2^60) (60 rounds), every
// round counts all pieces without an early exit, and divides in long double. The long double quotient is exact enough: a_i / L is at most
// 10^9 with a 64-bit mantissa (error < 1e-10), while a quotient that is not an integer is
// at least 1/L away from the next integer, and for L > a_i the quotient stays below 1.
// O(n log C).
#include <bits/stdc++.h>
using namespace std;

int main() {
    string text((istreambuf_iterator<char>(cin)), istreambuf_iterator<char>());
    istringstream in(text);
    int n;
    long long k;
    in >> n >> k;
    vector<long double> a(n);
    for (auto &x : a) {
        long long v;
        in >> v;
        x = (long double)v;
    }
    auto pieces = [&](long long len) {
        long double total = 0;
        const long double d = (long double)len;
        for (long double x : a) total += floorl(x / d);
        return total;
    };
    long long lo = 0, hi = (1LL << 60) - 1;
    while (lo < hi) {
        long long mid = lo + (hi - lo + 1) / 2;
        if (pieces(mid) >= (long double)k) lo = mid;
        else hi = mid - 1;
    }
    printf("%lld\n", lo);
    return 0;
}
