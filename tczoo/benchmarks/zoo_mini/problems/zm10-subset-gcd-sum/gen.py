"""Deterministic generator for zm10-subset-gcd-sum.

usage: python3 gen.py SEED [MODE] [n=N] [A=MAXVALUE] [lo=MINVALUE]
MODE:
  rand      n values uniform in [lo, A] (default)
  mult      n multiples of a random base g (values g*k <= A): large common gcds, deep exact-gcd chains
  alleq     n copies of one random value in [lo, A]
  distinct  n distinct values in [lo, A] (needs A - lo + 1 >= n)
  lastmax   rand, but the last value is the unique maximum A
  smooth    products of small primes <= A: many shared divisors
max sets n = 200000 and A = 500000.
"""
import sys
import random

MAX_N = 200000
MAX_A = 500000


def main():
    rng = random.Random(int(sys.argv[1]))
    mode, n, hi, lo = 'rand', 10, 100, 1
    for arg in sys.argv[2:]:
        if arg.startswith('n='):
            n = int(arg[2:])
        elif arg.startswith('A='):
            hi = int(arg[2:])
        elif arg.startswith('lo='):
            lo = int(arg[3:])
        elif arg == 'max':
            n, hi = MAX_N, MAX_A
        else:
            mode = arg
    assert 1 <= n <= MAX_N and 1 <= lo <= hi <= MAX_A
    if mode == 'rand':
        a = [rng.randint(lo, hi) for _ in range(n)]
    elif mode == 'mult':
        g = rng.randint(2, max(2, hi // 50))
        a = [g * rng.randint(1, hi // g) for _ in range(n)]
    elif mode == 'alleq':
        a = [rng.randint(lo, hi)] * n
    elif mode == 'distinct':
        assert hi - lo + 1 >= n
        a = rng.sample(range(lo, hi + 1), n)
    elif mode == 'lastmax':
        assert hi > lo
        a = [rng.randint(lo, hi - 1) for _ in range(n - 1)] + [hi]
    elif mode == 'smooth':
        primes = [2, 3, 5, 7, 11, 13]
        a = []
        for _ in range(n):
            v = 1
            while True:
                p = rng.choice(primes)
                if v * p > hi or rng.random() < 0.08:
                    break
                v *= p
            a.append(max(v, lo))
    else:
        raise SystemExit('unknown mode ' + mode)
    sys.stdout.write(f'{n}\n' + ' '.join(map(str, a)) + '\n')


main()
