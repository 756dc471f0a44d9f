import sys

data = sys.stdin.buffer.read().split()
n, k = int(data[0]), int(data[1])
a = list(map(int, data[2:2 + n]))
# a piece can never be longer than the shortest ribbon
lo, hi = 0, min(a)
while lo < hi:
    mid = (lo + hi + 1) // 2
    if sum(x // mid for x in a) >= k:
        lo = mid
    else:
        hi = mid - 1
print(lo)
