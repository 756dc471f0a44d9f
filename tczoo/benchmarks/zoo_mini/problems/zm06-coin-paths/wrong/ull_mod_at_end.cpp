#include <bits/stdc++.h>
using namespace std;

int main() {
    int n, m;
    scanf("%d %d", &n, &m);
    vector<int> best(m, -1);
    vector<unsigned long long> cnt(m, 0);  // "unsigned long long is big enough, mod at the end"
    vector<char> row(m + 2);
    for (int i = 0; i < n; i++) {
        scanf("%s", row.data());
        for (int j = 0; j < m; j++) {
            if (row[j] == '#') { best[j] = -1; cnt[j] = 0; continue; }
            int b = -1;
            unsigned long long c = 0;
            if (i == 0 && j == 0) b = 0, c = 1;
            if (best[j] > b) b = best[j], c = cnt[j];
            if (j > 0 && best[j - 1] >= 0) {
                if (best[j - 1] > b) b = best[j - 1], c = cnt[j - 1];
                else if (best[j - 1] == b) c += cnt[j - 1];
            }
            if (b >= 0) best[j] = b + row[j] - '0', cnt[j] = c;
            else best[j] = -1, cnt[j] = 0;
        }
    }
    if (best[m - 1] < 0) puts("-1");
    else printf("%d %llu\n", best[m - 1], cnt[m - 1] % 1000000007ULL);
}
