// Most valuable offers first; each takes the latest free day not after its deadline.
// Free days are found with a sqrt decomposition over days 1..n (block counts of free
// days, then a scan inside one block): O(n sqrt n).
#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<pair<long long, long long>> offers(n);  // (fee, deadline)
    for (auto &o : offers) scanf("%lld %lld", &o.second, &o.first);
    sort(offers.rbegin(), offers.rend());
    const int B = max(1, (int)sqrt((double)n));
    int blocks = n / B + 1;
    vector<char> freeDay(n + 1, 1);
    vector<int> freeInBlock(blocks, 0);
    for (int day = 1; day <= n; day++) freeInBlock[day / B]++;
    long long total = 0;
    for (auto &o : offers) {
        int x = (int)min<long long>(o.second, n);
        int found = -1;
        int b = x / B;
        for (int day = x; day >= max(1, b * B); day--)
            if (freeDay[day]) { found = day; break; }
        if (found < 0) {
            for (int bb = b - 1; bb >= 0 && found < 0; bb--) {
                if (!freeInBlock[bb]) continue;
                for (int day = min(n, bb * B + B - 1); day >= max(1, bb * B); day--)
                    if (freeDay[day]) { found = day; break; }
            }
        }
        if (found > 0) {
            freeDay[found] = 0;
            freeInBlock[found / B]--;
            total += o.first;
        }
    }
    printf("%lld\n", total);
    return 0;
}
