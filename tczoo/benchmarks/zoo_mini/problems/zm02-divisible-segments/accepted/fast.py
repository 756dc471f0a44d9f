# Prefix sums via itertools.accumulate, residues via Python's non-negative %, pairs of
# equal residues via Counter. O(n) per test case with C-level loops.
import sys
from collections import Counter
from itertools import accumulate


def main():
    data = sys.stdin.buffer.read().split()
    t = int(data[0])
    pos = 1
    out = []
    for _ in range(t):
        n = int(data[pos])
        k = int(data[pos + 1])
        pos += 2
        sums = accumulate(map(int, data[pos:pos + n]), initial=0)
        pos += n
        counts = Counter(s % k for s in sums)
        out.append(sum(c * (c - 1) for c in counts.values()) // 2)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
