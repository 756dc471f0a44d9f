import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
jobs = [(int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n)]
# round the ratio so that floating-point noise cannot reorder equal ratios
jobs.sort(key=lambda j: round(j[0] / j[1], 3))
now = 0
total = 0
for t, w in jobs:
    now += t
    total += w * now
print(total)
