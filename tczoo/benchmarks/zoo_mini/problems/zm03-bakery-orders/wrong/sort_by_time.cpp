#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    scanf("%d", &n);
    vector<pair<long long, long long>> jobs(n);  // (t, w)
    for (auto &j : jobs) scanf("%lld %lld", &j.first, &j.second);
    // shortest order first keeps everybody's waiting time low
    sort(jobs.begin(), jobs.end());
    long long now = 0, total = 0;
    for (auto &j : jobs) {
        now += j.first;
        total += j.second * now;
    }
    printf("%lld\n", total);
}
