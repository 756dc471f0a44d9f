import sys
from bisect import bisect_right

data = sys.stdin.buffer.read().split()
n, k = int(data[0]), int(data[1])
a = list(map(int, sorted(data[2:2 + n], key=int)))


def enough(length):
    # ribbons shorter than `length` give no piece: only look at the long ones
    start = bisect_right(a, length)
    return sum(map(length.__rfloordiv__, a[start:])) >= k


lo, hi = 0, a[-1]
while lo < hi:
    mid = (lo + hi + 1) // 2
    if enough(mid):
        lo = mid
    else:
        hi = mid - 1
print(lo)
