// Exchange argument: swapping two neighbouring orders i, j changes the total by
// t_i * w_j - t_j * w_i, so order by t/w ascending (compared by cross products, exact in
// 64-bit integers) and add up weight * completion time. O(n log n).
#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<pair<long long, long long>> jobs(n);  // (t, w)
    for (auto &j : jobs) scanf("%lld %lld", &j.first, &j.second);
    sort(jobs.begin(), jobs.end(), [](const pair<long long, long long> &a, const pair<long long, long long> &b) {
        return a.first * b.second < b.first * a.second;
    });
    long long now = 0, total = 0;
    for (auto &j : jobs) {
        now += j.first;
        total += j.second * now;
    }
    printf("%lld\n", total);
    return 0;
}
