# Two pointers with two binary heaps (max via negated values) and lazy deletion of entries that
# fell out of the window: O(n log n) per test.
import sys
from heapq import heappush, heappop


def main():
    data = sys.stdin.buffer.read().split()
    t = int(data[0])
    pos = 1
    out = []
    for _ in range(t):
        n = int(data[pos])
        k = int(data[pos + 1])
        a = list(map(int, data[pos + 2:pos + 2 + n]))
        pos += 2 + n
        hmax = []
        hmin = []
        l = 0
        count = 0
        for r in range(n):
            heappush(hmax, (-a[r], r))
            heappush(hmin, (a[r], r))
            while True:
                while hmax[0][1] < l:
                    heappop(hmax)
                while hmin[0][1] < l:
                    heappop(hmin)
                if -hmax[0][0] - hmin[0][0] <= k:
                    break
                l += 1
            count += r - l + 1
        out.append(count)
    print('\n'.join(map(str, out)))


main()
