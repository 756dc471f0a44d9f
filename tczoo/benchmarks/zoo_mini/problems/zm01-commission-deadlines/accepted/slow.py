# Fees in decreasing order; each offer takes the latest free day <= min(deadline, n),
# found with an iterative disjoint-set "next free day to the left". O(n log n) sort + near-linear DSU.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    vals = list(map(int, data[1:2 * n + 1]))
    offers = sorted(((vals[2 * i + 1], vals[2 * i]) for i in range(n)), reverse=True)
    parent = list(range(n + 1))  # parent[x] == x: day x is free; day 0 is a sentinel
    total = 0
    for fee, dl in offers:
        x = dl if dl < n else n
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        if root > 0:
            total += fee
            parent[root] = root - 1
    print(total)


main()
