#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    scanf("%d", &n);
    vector<pair<int, int>> jobs(n);  // (t, w)
    for (auto &j : jobs) scanf("%d %d", &j.first, &j.second);
    sort(jobs.begin(), jobs.end(), [](const pair<int, int> &a, const pair<int, int> &b) {
        return a.first * b.second < b.first * a.second;
    });
    int now = 0;  // at most 2e5 * 1e4 = 2e9, fits
    long long total = 0;
    for (auto &j : jobs) {
        now += j.first;
        total += j.second * now;
    }
    printf("%lld\n", total);
}
