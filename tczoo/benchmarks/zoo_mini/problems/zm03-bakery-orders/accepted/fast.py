# Order by t/w ascending. With 1 <= t, w <= 10^4 two different ratios differ by at least
# 1e-8, far above double rounding error, and equal ratios round to the same double, so a
# float key orders exactly. O(n log n), all heavy loops at C level.
import sys
from itertools import accumulate
from operator import mul, truediv


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    t = list(map(int, data[1:2 * n + 1:2]))
    w = list(map(int, data[2:2 * n + 1:2]))
    keys = list(map(truediv, t, w))
    order = sorted(range(n), key=keys.__getitem__)
    done = accumulate([t[i] for i in order])
    print(sum(map(mul, [w[i] for i in order], done)))


main()
