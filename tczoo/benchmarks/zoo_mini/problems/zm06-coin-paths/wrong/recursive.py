import sys
from functools import lru_cache

sys.setrecursionlimit(10 ** 7)
MOD = 10 ** 9 + 7


def main():
    data = sys.stdin.read().split()
    n, m = int(data[0]), int(data[1])
    g = data[2:2 + n]

    @lru_cache(maxsize=None)
    def best(i, j):
        # most coins from (i, j) to the target; -1 = unreachable
        c = g[i][j]
        if c == '#':
            return -1
        if i == n - 1 and j == m - 1:
            return ord(c) - 48
        b = best(i + 1, j) if i + 1 < n else -1
        if j + 1 < m:
            r = best(i, j + 1)
            if r > b:
                b = r
        return b + ord(c) - 48 if b >= 0 else -1

    @lru_cache(maxsize=None)
    def ways(i, j, need):
        # paths from (i, j) to the target that collect exactly `need` coins
        if i == n - 1 and j == m - 1:
            return 1
        rest = need - (ord(g[i][j]) - 48)
        w = 0
        if i + 1 < n and best(i + 1, j) == rest:
            w += ways(i + 1, j, rest)
        if j + 1 < m and best(i, j + 1) == rest:
            w += ways(i, j + 1, rest)
        return w % MOD

    b = best(0, 0)
    print(-1 if b < 0 else f"{b} {ways(0, 0, b)}")


main()
