#include <bits/stdc++.h>
using namespace std;

int main() {
    int t;
    scanf("%d", &t);
    while (t--) {
        int n;
        long long k;
        scanf("%d %lld", &n, &k);
        if (n == 1) {  // one reading: exactly one calm segment
            puts("1");
            continue;
        }
        vector<long long> a(n);
        for (auto& x : a) scanf("%lld", &x);
        deque<int> mx, mn;
        long long count = 0;
        int l = 0;
        for (int r = 0; r < n; r++) {
            while (!mx.empty() && a[mx.back()] <= a[r]) mx.pop_back();
            mx.push_back(r);
            while (!mn.empty() && a[mn.back()] >= a[r]) mn.pop_back();
            mn.push_back(r);
            while (a[mx.front()] - a[mn.front()] > k) {
                l++;
                if (mx.front() < l) mx.pop_front();
                if (mn.front() < l) mn.pop_front();
            }
            count += r - l + 1;
        }
        printf("%lld\n", count);
    }
}
