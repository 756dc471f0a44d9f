# Iterative breadth-first search over adjacency lists; each cable is stored at both ends (a loop
# twice at its station), so a network's degree sum is twice its number of cables. O(n + m).
import sys
from collections import deque


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    adj = [[] for _ in range(n + 1)]
    for i in range(m):
        u = int(data[2 + 2 * i])
        v = int(data[3 + 2 * i])
        adj[u].append(v)
        adj[v].append(u)
    seen = [False] * (n + 1)
    cuts = lean = 0
    for s in range(1, n + 1):
        if seen[s]:
            continue
        seen[s] = True
        q = deque([s])
        vertices = degree_sum = 0
        while q:
            u = q.popleft()
            vertices += 1
            degree_sum += len(adj[u])
            for w in adj[u]:
                if not seen[w]:
                    seen[w] = True
                    q.append(w)
        e = degree_sum // 2
        cuts += e - (vertices - 1)
        if e == vertices - 1:
            lean += 1
    print(cuts, lean)


main()
