import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    parent = list(range(n + 1))
    kept = []
    for i in range(m):
        u = int(data[2 + 2 * i])
        v = int(data[3 + 2 * i])
        if u == v:
            continue  # a loop connects nothing
        kept.append((u, v))
        while parent[u] != u:
            parent[u] = parent[parent[u]]
            u = parent[u]
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        if u != v:
            parent[u] = v

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    edges = [0] * (n + 1)
    verts = [0] * (n + 1)
    for u, v in kept:
        edges[find(u)] += 1
    for v in range(1, n + 1):
        verts[find(v)] += 1
    networks = lean = 0
    for v in range(1, n + 1):
        if parent[v] == v:
            networks += 1
            if edges[v] == verts[v] - 1:
                lean += 1
    print(len(kept) - n + networks, lean)


main()
