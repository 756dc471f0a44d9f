# Disjoint set union with path halving; cuts = m - n + #networks, lean iff cables == stations - 1.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    parent = list(range(n + 1))
    size = [1] * (n + 1)
    us = data[2:2 + 2 * m:2]
    vs = data[3:3 + 2 * m:2]
    ends = []
    for a, b in zip(us, vs):
        a = int(a)
        b = int(b)
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a != b:
            if size[a] < size[b]:
                a, b = b, a
            parent[b] = a
            size[a] += size[b]
        ends.append(a)
    # compress every station to its root once
    root = [0] * (n + 1)
    for v in range(1, n + 1):
        r = v
        while parent[r] != r:
            r = parent[r]
        root[v] = r
    edges = [0] * (n + 1)
    for a in ends:
        edges[root[a]] += 1
    networks = lean = 0
    for v in range(1, n + 1):
        if root[v] == v:
            networks += 1
            if edges[v] == size[v] - 1:
                lean += 1
    print(m - n + networks, lean)


main()
