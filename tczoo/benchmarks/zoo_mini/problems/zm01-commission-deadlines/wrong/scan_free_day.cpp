#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    scanf("%d", &n);
    vector<pair<long long, long long>> a(n);  // (fee, deadline)
    for (auto &x : a) scanf("%lld %lld", &x.second, &x.first);
    sort(a.rbegin(), a.rend());
    vector<bool> busy(n + 1, false);
    long long total = 0;
    for (auto &x : a) {
        int d = (int)min<long long>(x.second, n);
        // latest free day not after the deadline, found by scanning the whole calendar
        int latest = 0;
        for (int day = 1; day <= n; day++)
            if (!busy[day] && day <= d) latest = day;
        if (latest) {
            busy[latest] = 1;
            total += x.first;
        }
    }
    printf("%lld\n", total);
}
