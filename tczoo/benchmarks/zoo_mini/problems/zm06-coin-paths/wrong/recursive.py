import sys
from functools import lru_cache

sys.setrecursionlimit(10 ** 7)
MOD = 10 ** 9 + 7


def main():
    data = sys.stdin.read().split()
    n, m = int(data[0]), int(data[1])
    g = data[2:2 + n]

    @lru_cache(maxsize=None)
    def go(i, j):
        # (best coins, ways) from (i, j) to the target; best -1 = unreachable
        if g[i][j] == '#':
            return (-1, 0)
        v = ord(g[i][j]) - 48
        if i == n - 1 and j == m - 1:
            return (v, 1)
        b, w = -1, 0
        for (a, c) in ((i + 1, j), (i, j + 1)):
            if a < n and c < m:
                bb, ww = go(a, c)
                if bb > b:
                    b, w = bb, ww
                elif bb == b and bb >= 0:
                    w = (w + ww) % MOD
        return (b + v, w) if b >= 0 else (-1, 0)

    b, w = go(0, 0)
    print(-1 if b < 0 else f"{b} {w}")


main()
