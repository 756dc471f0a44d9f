#include <bits/stdc++.h>
using namespace std;

// queue built from two stacks, each entry remembers the max and min of its stack below it
struct Entry {
    long long v, hi, lo;
};

int main() {
    int t;
    scanf("%d", &t);
    while (t--) {
        int n;
        long long k;
        scanf("%d %lld", &n, &k);
        vector<long long> a(n);
        for (auto& x : a) scanf("%lld", &x);
        vector<Entry> in, out;
        auto top_hi = [](const vector<Entry>& s) { return s.empty() ? 0LL : s.back().hi; };
        auto top_lo = [](const vector<Entry>& s) { return s.empty() ? LLONG_MAX : s.back().lo; };
        auto push = [&](vector<Entry>& s, long long v) {
            s.push_back({v, max(v, top_hi(s)), min(v, top_lo(s))});
        };
        auto pop = [&]() {
            if (out.empty())
                while (!in.empty()) {
                    push(out, in.back().v);
                    in.pop_back();
                }
            out.pop_back();
        };
        long long count = 0;
        for (int r = 0; r < n; r++) {
            push(in, a[r]);
            while (max(top_hi(in), top_hi(out)) - min(top_lo(in), top_lo(out)) > k) pop();
            count += (long long)in.size() + out.size();
        }
        printf("%lld\n", count);
    }
}
