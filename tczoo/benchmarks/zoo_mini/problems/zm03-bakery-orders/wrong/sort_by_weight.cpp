#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    scanf("%d", &n);
    vector<pair<long long, long long>> jobs(n);  // (w, t)
    for (auto &j : jobs) scanf("%lld %lld", &j.second, &j.first);
    // most impatient customers first; among equals, the quicker order first
    sort(jobs.begin(), jobs.end(), [](const pair<long long, long long> &a, const pair<long long, long long> &b) {
        if (a.first != b.first) return a.first > b.first;
        return a.second < b.second;
    });
    long long now = 0, total = 0;
    for (auto &j : jobs) {
        now += j.second;
        total += j.first * now;
    }
    printf("%lld\n", total);
}
