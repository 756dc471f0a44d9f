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
    par = [0] * (n + 1)
    par[1] = -1
    order = [1]
    for v in order:
        for c in g[v]:
            if c != par[v]:
                par[c] = v
                order.append(c)
    down = a[:]
    for v in reversed(order[1:]):
        down[par[v]] += max(0, down[v])
    ans = [0] * (n + 1)
    ans[1] = down[1]
    for v in order[1:]:
        # glue the parent's best district on if it helps
        ans[v] = down[v] + max(0, ans[par[v]])
    print(" ".join(map(str, ans[1:])))


main()
