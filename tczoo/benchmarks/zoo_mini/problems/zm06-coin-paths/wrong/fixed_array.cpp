#include <bits/stdc++.h>
using namespace std;

const int MOD = 1000000007;
const int N = 1005;  // "n, m <= 1000 since n*m <= 10^6"
char g[N][N];
int best[N][N];
long long ways[N][N];

int main() {
    int n, m;
    scanf("%d %d", &n, &m);
    for (int i = 0; i < n; i++) scanf("%s", g[i]);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            best[i][j] = -1, ways[i][j] = 0;
            if (g[i][j] == '#') continue;
            int b = -1;
            long long w = 0;
            if (i == 0 && j == 0) b = 0, w = 1;
            if (i > 0 && best[i - 1][j] > b) b = best[i - 1][j], w = ways[i - 1][j];
            if (j > 0 && best[i][j - 1] >= 0) {
                if (best[i][j - 1] > b) b = best[i][j - 1], w = ways[i][j - 1];
                else if (best[i][j - 1] == b) w = (w + ways[i][j - 1]) % MOD;
            }
            if (b >= 0) best[i][j] = b + g[i][j] - '0', ways[i][j] = w;
        }
    if (best[n - 1][m - 1] < 0) puts("-1");
    else printf("%d %lld\n", best[n - 1][m - 1], ways[n - 1][m - 1]);
}
