#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    scanf("%d", &n);
    vector<pair<int, int>> a(n);
    for (auto &x : a) scanf("%d %d", &x.first, &x.second);
    sort(a.begin(), a.end());
    priority_queue<int, vector<int>, greater<int>> pq;
    int total = 0;
    for (auto &x : a) {
        pq.push(x.second);
        total += x.second;
        if ((int)pq.size() > x.first) {
            total -= pq.top();
            pq.pop();
        }
    }
    printf("%d\n", total);
}
