import sys
import heapq

data = sys.stdin.buffer.read().split()
n = int(data[0])
rows = sorted(zip(data[1:2 * n + 1:2], data[2:2 * n + 1:2]))  # by deadline, then by fee
kept = []
for d, p in rows:
    dl, fee = int(d), int(p)
    if len(kept) < dl:
        heapq.heappush(kept, fee)
    elif kept[0] < fee:
        heapq.heapreplace(kept, fee)
print(sum(kept))
