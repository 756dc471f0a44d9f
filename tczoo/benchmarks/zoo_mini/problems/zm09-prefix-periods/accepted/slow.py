# Z-function plus a monotone pointer: the smallest period never decreases as the prefix grows,
# and p stays a period of the prefix of length i while p + z[p] >= i. O(|s|) with a larger constant.
import sys


def z_function(s):
    n = len(s)
    z = [0] * n
    l = r = 0
    for i in range(1, n):
        if i < r:
            z[i] = min(r - i, z[i - l])
        while i + z[i] < n and s[z[i]] == s[i + z[i]]:
            z[i] += 1
        if i + z[i] > r:
            l, r = i, i + z[i]
    return z


def solve(s):
    n = len(s)
    z = z_function(s)
    total = 0
    p = 1
    for i in range(1, n + 1):
        # advance p to the smallest candidate that is still a period of s[:i]
        while p < i and p + z[p] < i:
            p += 1
        total += p if p < i else i
        if p >= i:
            p = i
    return total


def main():
    lines = sys.stdin.buffer.read().split()
    t = int(lines[0])
    res = [str(solve(lines[j])) for j in range(1, t + 1)]
    print('\n'.join(res))


main()
