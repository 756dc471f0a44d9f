#include <bits/stdc++.h>
using namespace std;

// the smallest period never decreases, so keep it and re-check candidates when it breaks
int main() {
    int t;
    scanf("%d", &t);
    static char buf[200005];
    while (t--) {
        scanf("%s", buf);
        int n = strlen(buf);
        long long total = 0;
        int p = 1;
        for (int i = 0; i < n; i++) {  // prefix buf[0..i]
            if (i >= p && buf[i] != buf[i - p]) {
                p++;
                while (true) {
                    bool ok = true;
                    for (int j = p; j <= i; j++)
                        if (buf[j] != buf[j - p]) { ok = false; break; }
                    if (ok) break;
                    p++;
                }
            }
            total += p;
        }
        printf("%lld\n", total);
    }
}
