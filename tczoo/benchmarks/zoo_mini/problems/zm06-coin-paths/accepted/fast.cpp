// O(n*m) time, O(m) memory: one row of (best coins, number of best paths) at a time.
#include <bits/stdc++.h>
using namespace std;

const int MOD = 1000000007;

int main() {
    int n, m;
    if (scanf("%d %d", &n, &m) != 2) return 0;
    vector<int> best(m, -1), cnt(m, 0);
    vector<char> row(m + 2);
    for (int i = 0; i < n; i++) {
        scanf("%s", row.data());
        for (int j = 0; j < m; j++) {
            if (row[j] == '#') { best[j] = -1; cnt[j] = 0; continue; }
            int b, c;
            if (i == 0 && j == 0) { b = 0; c = 1; }
            else {
                int up = best[j], upc = cnt[j];
                int lf = j ? best[j - 1] : -1, lfc = j ? cnt[j - 1] : 0;
                if (up > lf) b = up, c = upc;
                else if (lf > up) b = lf, c = lfc;
                else { b = up; c = upc + lfc; if (c >= MOD) c -= MOD; }
            }
            if (b < 0) { best[j] = -1; cnt[j] = 0; }
            else { best[j] = b + (row[j] - '0'); cnt[j] = c; }
        }
    }
    if (best[m - 1] < 0) puts("-1");
    else printf("%d %d\n", best[m - 1], cnt[m - 1]);
}
