// Sort offers by deadline and keep the fees of the accepted offers in a min-heap.
// Whenever more offers are accepted than days available up to the current deadline,
// drop the cheapest one. O(n log n).
#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<pair<long long, long long>> offers(n);
    for (auto &o : offers) scanf("%lld %lld", &o.first, &o.second);
    sort(offers.begin(), offers.end());
    priority_queue<long long, vector<long long>, greater<long long>> kept;
    long long total = 0;
    for (auto &o : offers) {
        kept.push(o.second);
        total += o.second;
        if ((long long)kept.size() > o.first) {
            total -= kept.top();
            kept.pop();
        }
    }
    printf("%lld\n", total);
    return 0;
}
