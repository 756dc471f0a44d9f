#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    scanf("%d", &n);
    vector<pair<double, double>> jobs(n);  // (t, w)
    for (auto &j : jobs) scanf("%lf %lf", &j.first, &j.second);
    sort(jobs.begin(), jobs.end(), [](const pair<double, double> &a, const pair<double, double> &b) {
        return a.first / a.second < b.first / b.second;
    });
    double now = 0, total = 0;
    for (auto &j : jobs) {
        now += j.first;
        total += j.second * now;
    }
    printf("%.0f\n", total);
}
