#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    scanf("%d", &n);
    vector<long long> t(n), w(n);
    for (int i = 0; i < n; i++) scanf("%lld %lld", &t[i], &w[i]);
    // insertion sort by t/w: cheap when the orders arrive almost sorted
    for (int i = 1; i < n; i++) {
        long long ct = t[i], cw = w[i];
        int j = i - 1;
        while (j >= 0 && t[j] * cw > ct * w[j]) {
            t[j + 1] = t[j];
            w[j + 1] = w[j];
            j--;
        }
        t[j + 1] = ct;
        w[j + 1] = cw;
    }
    long long now = 0, total = 0;
    for (int i = 0; i < n; i++) {
        now += t[i];
        total += w[i] * now;
    }
    printf("%lld\n", total);
}
