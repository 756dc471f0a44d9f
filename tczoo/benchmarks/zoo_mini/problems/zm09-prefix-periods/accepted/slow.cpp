// Z-function view: p is a period of the prefix of length i iff p + z[p] >= i (p < i).
// Sweep i upwards keeping the candidate periods p < i in a min-heap and dropping those
// whose reach p + z[p] fell below i. O(|s| log |s|) per rhythm.
#include <bits/stdc++.h>
using namespace std;

vector<int> zfunc(const string& s) {
    int n = s.size();
    vector<int> z(n, 0);
    int l = 0, r = 0;
    for (int i = 1; i < n; i++) {
        if (i < r) z[i] = min(r - i, z[i - l]);
        while (i + z[i] < n && s[z[i]] == s[i + z[i]]) z[i]++;
        if (i + z[i] > r) l = i, r = i + z[i];
    }
    return z;
}

int main() {
    int t;
    if (scanf("%d", &t) != 1) return 0;
    static char buf[200005];
    while (t--) {
        scanf("%s", buf);
        string s(buf);
        int n = s.size();
        vector<int> z = zfunc(s);
        priority_queue<pair<int, int>, vector<pair<int, int>>, greater<pair<int, int>>> heap;  // (p, reach)
        long long total = 0;
        for (int i = 1; i <= n; i++) {
            if (i >= 2) heap.push({i - 1, i - 1 + z[i - 1]});
            while (!heap.empty() && heap.top().second < i) heap.pop();
            total += heap.empty() ? i : heap.top().first;
        }
        printf("%lld\n", total);
    }
}
