import sys
import heapq

lines = sys.stdin.read().split("\n")
n = int(lines[0])
rows = [line.split() for line in lines[1:n + 1]]
rows.sort()  # by deadline, then by fee
kept = []
for row in rows:
    dl, fee = int(row[0]), int(row[1])
    if len(kept) < dl:
        heapq.heappush(kept, fee)
    elif kept[0] < fee:
        heapq.heapreplace(kept, fee)
print(sum(kept))
