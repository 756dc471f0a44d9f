import sys
from heapq import heappush, heappop
from bisect import bisect_right


def main():
    data = sys.stdin.buffer.read().split()
    n, m, k = int(data[0]), int(data[1]), int(data[2])
    src = [int(x) for x in data[3:3 + k]]
    pos = 3 + k
    adj = [[] for _ in range(n + 1)]
    for i in range(m):
        u, v, w = int(data[pos]), int(data[pos + 1]), int(data[pos + 2])
        pos += 3
        adj[u].append((v, w))
        adj[v].append((u, w))
    dist = [-1] * (n + 1)
    heap = []
    for s in src:
        dist[s] = 0
        heap.append((0, s))
    while heap:
        d, u = heappop(heap)
        for v, w in adj[u]:
            if dist[v] == -1:  # first time seen: its distance is final
                dist[v] = d + w
                heappush(heap, (d + w, v))
    fin = sorted(d for d in dist[1:] if d != -1)
    q = int(data[pos])
    xs = data[pos + 1:pos + 1 + q]
    print("\n".join(str(bisect_right(fin, int(x))) for x in xs))


main()
