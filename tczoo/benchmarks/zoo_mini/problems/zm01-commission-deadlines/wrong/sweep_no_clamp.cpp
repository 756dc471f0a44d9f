#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    scanf("%d", &n);
    // sweep the days from the last one to the first; on each day do the richest offer
    // that is still allowed (deadline >= day)
    vector<vector<long long>> due(n + 1);
    for (int i = 0; i < n; i++) {
        long long d, p;
        scanf("%lld %lld", &d, &p);
        if (d <= n) due[d].push_back(p);
    }
    priority_queue<long long> available;
    long long total = 0;
    for (int day = n; day >= 1; day--) {
        for (long long p : due[day]) available.push(p);
        if (!available.empty()) {
            total += available.top();
            available.pop();
        }
    }
    printf("%lld\n", total);
}
