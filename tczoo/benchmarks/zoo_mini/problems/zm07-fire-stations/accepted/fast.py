# O((n + m) log n): multi-source Dijkstra with heapq (stale entries skipped),
# queries by bisect_right over the sorted finite distances. Heap entries are
# single integers d * 2^18 + v: comparing ints is much cheaper than tuples.
import sys
from heapq import heappush, heappop
from bisect import bisect_right


def main():
    data = sys.stdin.buffer.read().split()
    n, m, k = int(data[0]), int(data[1]), int(data[2])
    INF = 1 << 62
    SH = 18
    MASK = (1 << SH) - 1
    dist = [INF] * (n + 1)
    heap = []
    for s in map(int, data[3:3 + k]):
        dist[s] = 0
        heap.append(s)
    pos = 3 + k
    e = list(map(int, data[pos:pos + 3 * m]))
    pos += 3 * m
    adj = [[] for _ in range(n + 1)]
    us, vs, ws = e[0::3], e[1::3], e[2::3]
    for u, v, w in zip(us, vs, ws):
        adj[u].append(v << 30 | w)
        adj[v].append(u << 30 | w)
    W = (1 << 30) - 1
    while heap:
        x = heappop(heap)
        u = x & MASK
        d = x >> SH
        if d != dist[u]:
            continue
        for vw in adj[u]:
            v = vw >> 30
            nd = d + (vw & W)
            if nd < dist[v]:
                dist[v] = nd
                heappush(heap, nd << SH | v)
    fin = sorted([d for d in dist if d != INF])
    q = int(data[pos])
    xs = data[pos + 1:pos + 1 + q]
    sys.stdout.write("\n".join([str(bisect_right(fin, int(x))) for x in xs]) + "\n")


main()
