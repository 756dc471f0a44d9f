# O(n) rerooting with an explicit DFS stack (preorder) and per-vertex child lists;
# the parent side is rebuilt from each parent's total of positive child gains.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = [0] + list(map(int, data[1:n + 1]))
    adj = [[] for _ in range(n + 1)]
    it = iter(map(int, data[n + 1:]))
    for u in it:
        v = next(it)
        adj[u].append(v)
        adj[v].append(u)
    children = [None] * (n + 1)
    seen = [False] * (n + 1)
    order = []
    stack = [1]
    seen[1] = True
    while stack:
        v = stack.pop()
        order.append(v)
        ch = [c for c in adj[v] if not seen[c]]
        for c in ch:
            seen[c] = True
        children[v] = ch
        stack.extend(ch)
    down = [0] * (n + 1)
    gain = [0] * (n + 1)  # max(0, down[v])
    for v in reversed(order):
        d = a[v] + sum([gain[c] for c in children[v]])
        down[v] = d
        gain[v] = d if d > 0 else 0
    up = [0] * (n + 1)
    for v in order:
        total = down[v] + up[v]
        for c in children[v]:
            rest = total - gain[c]
            up[c] = rest if rest > 0 else 0
    sys.stdout.write(" ".join([str(down[v] + up[v]) for v in range(1, n + 1)]) + "\n")


main()
