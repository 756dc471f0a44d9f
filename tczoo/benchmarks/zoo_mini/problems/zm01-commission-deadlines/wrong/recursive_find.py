import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
offers = sorted(((int(data[2 + 2 * i]), int(data[1 + 2 * i])) for i in range(n)), reverse=True)
parent = list(range(n + 1))


def find(x):
    if parent[x] != x:
        parent[x] = find(parent[x])
    return parent[x]


total = 0
for fee, dl in offers:
    day = find(min(dl, n))
    if day > 0:
        total += fee
        parent[day] = day - 1
print(total)
