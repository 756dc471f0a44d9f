# Binary search on the piece length; each check counts pieces with a C-level
# sum(map(len.__rfloordiv__, a)). O(n log max a).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    lo, hi = 0, max(a)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sum(map(mid.__rfloordiv__, a)) >= k:
            lo = mid
        else:
            hi = mid - 1
    print(lo)


main()
