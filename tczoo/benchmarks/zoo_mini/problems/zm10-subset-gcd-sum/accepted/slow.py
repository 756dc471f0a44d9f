# sum over subsets of gcd = sum_d phi(d) * (2^{c_d} - 1), c_d = how many a_i are divisible by d.
# phi by slice-updates over primes, c_d by slice sums: O(A log A) element operations, larger constant.
import sys
from itertools import compress
from operator import mul

MOD = 998244353


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    vals = list(map(int, data[1:n + 1]))
    m = max(vals)
    freq = [0] * (m + 1)
    for v in vals:
        freq[v] += 1
    sieve = bytearray([1]) * (m + 1)
    sieve[0] = sieve[1] = 0
    p = 2
    while p * p <= m:
        if sieve[p]:
            sieve[p * p::p] = bytes(len(range(p * p, m + 1, p)))
        p += 1
    phi = list(range(m + 1))
    for p in compress(range(m + 1), sieve):
        phi[p::p] = [x - x // p for x in phi[p::p]]
    pw = [1] * (n + 1)
    for i in range(1, n + 1):
        pw[i] = pw[i - 1] * 2 % MOD
    cnt = [sum(freq[d::d]) for d in range(1, m + 1)]
    # terms with c_d = 0 vanish, so sum phi(d) * 2^{c_d} over all d and subtract sum phi(d)
    total = sum(map(mul, phi[1:], map(pw.__getitem__, cnt))) - sum(phi[1:])
    print(total % MOD)


main()
