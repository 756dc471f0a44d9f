# Binary search on the piece length over the fixed range [0, 2^40) (40 rounds, no use of
# max a_i), each check an explicit Python loop over all ribbons without an early exit.
# O(n log C): slower than fast.py, still well inside the limit.
import sys


def count_pieces(a, length):
    pieces = 0
    for x in a:
        pieces += x // length
    return pieces


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    a = [int(x) for x in data[2:2 + n]]
    lo, hi = 0, (1 << 40) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count_pieces(a, mid) >= k:
            lo = mid
        else:
            hi = mid - 1
    print(lo)


main()
