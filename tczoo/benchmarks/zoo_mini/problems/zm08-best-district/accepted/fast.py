# O(n) rerooting DP with a BFS order (no recursion): down[v] is the best district
# whose highest town is v, ans[c] = down[c] + max(0, ans[p] - max(0, down[c])).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = [0] + list(map(int, data[1:n + 1]))
    e = list(map(int, data[n + 1:n + 1 + 2 * (n - 1)]))
    adj = [[] for _ in range(n + 1)]
    for i in range(0, 2 * (n - 1), 2):
        u = e[i]; v = e[i + 1]
        adj[u].append(v)
        adj[v].append(u)
    par = [0] * (n + 1)
    par[1] = -1
    order = [1]
    for v in order:  # the list grows while we walk it: BFS
        p = par[v]
        for c in adj[v]:
            if c != p:
                par[c] = v
                order.append(c)
    down = a[:]
    for i in range(n - 1, 0, -1):
        v = order[i]
        d = down[v]
        if d > 0:
            down[par[v]] += d
    ans = [0] * (n + 1)
    ans[1] = down[1]
    for i in range(1, n):
        v = order[i]
        d = down[v]
        rest = ans[par[v]] - (d if d > 0 else 0)
        ans[v] = d + rest if rest > 0 else d
    sys.stdout.write(" ".join(map(str, ans[1:])) + "\n")


main()
