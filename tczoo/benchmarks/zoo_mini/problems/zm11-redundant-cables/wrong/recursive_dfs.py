import sys


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

    def dfs(u):
        seen[u] = True
        vertices, degree_sum = 1, len(adj[u])
        for w in adj[u]:
            if not seen[w]:
                a, b = dfs(w)
                vertices += a
                degree_sum += b
        return vertices, degree_sum

    cuts = lean = 0
    for s in range(1, n + 1):
        if not seen[s]:
            vertices, degree_sum = dfs(s)
            e = degree_sum // 2
            cuts += e - (vertices - 1)
            if e == vertices - 1:
                lean += 1
    print(cuts, lean)


main()
