#include <bits/stdc++.h>
using namespace std;

const int MOD = 1000000007;

int coins(char c) { return c == '#' ? 0 : c - '0'; }

int main() {
    int n, m;
    scanf("%d %d", &n, &m);
    vector<int> best(m, -1), cnt(m, 0);
    vector<char> row(m + 2);
    for (int i = 0; i < n; i++) {
        scanf("%s", row.data());
        for (int j = 0; j < m; j++) {
            if (i == 0 && j == 0) { best[0] = coins(row[0]); cnt[0] = 1; continue; }
            if (row[j] == '#') { best[j] = -1; cnt[j] = 0; continue; }
            int b = best[j], c = cnt[j];
            if (j > 0 && best[j - 1] > b) b = best[j - 1], c = cnt[j - 1];
            else if (j > 0 && best[j - 1] == b && b >= 0) c = (c + cnt[j - 1]) % MOD;
            if (b >= 0) best[j] = b + coins(row[j]), cnt[j] = c;
            else best[j] = -1, cnt[j] = 0;
        }
    }
    if (best[m - 1] < 0) puts("-1");
    else printf("%d %d\n", best[m - 1], cnt[m - 1]);
}
