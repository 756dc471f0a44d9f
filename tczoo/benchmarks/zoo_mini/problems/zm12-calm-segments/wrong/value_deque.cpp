#include <bits/stdc++.h>
using namespace std;

// monotonic deques of values; when the left end leaves, drop the front if it is that value
int main() {
    int t;
    scanf("%d", &t);
    while (t--) {
        int n;
        long long k;
        scanf("%d %lld", &n, &k);
        vector<long long> a(n);
        for (auto& x : a) scanf("%lld", &x);
        deque<long long> mx, mn;
        long long count = 0;
        int l = 0;
        for (int r = 0; r < n; r++) {
            while (!mx.empty() && mx.back() <= a[r]) mx.pop_back();
            mx.push_back(a[r]);
            while (!mn.empty() && mn.back() >= a[r]) mn.pop_back();
            mn.push_back(a[r]);
            while (!mx.empty() && !mn.empty() && mx.front() - mn.front() > k) {
                if (mx.front() == a[l]) mx.pop_front();
                if (mn.front() == a[l]) mn.pop_front();
                l++;
            }
            count += r - l + 1;
        }
        printf("%lld\n", count);
    }
}
