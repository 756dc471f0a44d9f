import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = [0] + [int(x) for x in data[1:n + 1]]
    g = [[] for _ in range(n + 1)]
    for i in range(n - 1):
        u, v = int(data[n + 1 + 2 * i]), int(data[n + 2 + 2 * i])
        g[u].append(v)
        g[v].append(u)
    down = [0] * (n + 1)
    ans = [0] * (n + 1)

    def dfs1(v, p):
        down[v] = a[v]
        for c in g[v]:
            if c != p:
                dfs1(c, v)
                down[v] += max(0, down[c])

    def dfs2(v, p):
        for c in g[v]:
            if c != p:
                ans[c] = down[c] + max(0, ans[v] - max(0, down[c]))
                dfs2(c, v)

    dfs1(1, 0)
    ans[1] = down[1]
    dfs2(1, 0)
    print(" ".join(map(str, ans[1:])))


main()
