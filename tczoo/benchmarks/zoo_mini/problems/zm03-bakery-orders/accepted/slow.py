# Exact integer key floor(t * 10^9 / w): distinct ratios differ by at least 1e-8, i.e. by
# at least 10 after scaling, so the floor keeps their order. The index is packed into the
# low bits of the key so that a plain list of ints is sorted; the total is added up in a
# Python loop. O(n log n).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    vals = list(map(int, data[1:2 * n + 1]))
    t = vals[0::2]
    w = vals[1::2]
    packed = sorted([(t[i] * 1000000000 // w[i]) << 18 | i for i in range(n)])
    mask = (1 << 18) - 1
    now = 0
    total = 0
    for x in packed:
        i = x & mask
        now += t[i]
        total += w[i] * now
    print(total)


main()
