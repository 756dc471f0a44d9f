import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
jobs = [(int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n)]
# quick and important orders first: small t, large w
jobs.sort(key=lambda j: j[0] - j[1])
now = 0
total = 0
for t, w in jobs:
    now += t
    total += w * now
print(total)
