"""Deterministic generator for zm12-calm-segments.

usage: python3 gen.py SEED [MODE] [n=TOTAL] [t=COUNT] [lo=MIN] [hi=MAX] [k=K | kfrac=F] [ones=P] [max]
n is the total length over all tests, split into t random positive parts.
MODE, per test case:
  rand     readings uniform in [lo, hi] (default lo=1, hi=10)
  walk     a random walk with steps in [-step, step] (step=S, default 3), clamped to [lo, hi]
  blocks   runs of equal readings drawn from [lo, hi] (many duplicates inside windows)
  sorted   rand, sorted non-decreasingly
k: the tolerance for every test; kfrac=F picks k = F * (hi - lo) instead (default k=3).
ones=P puts roughly P percent of the tests at length 1 (the rest share the remaining total).
max sets n = 200000.
"""
import sys
import random

LIM = 10**9


def main():
    rng = random.Random(int(sys.argv[1]))
    mode, total, t, lo, hi, k, kfrac, step, ones = 'rand', 10, 1, 1, 10, 3, None, 3, 0
    for arg in sys.argv[2:]:
        key, _, val = arg.partition('=')
        if key == 'n': total = int(val)
        elif key == 't': t = int(val)
        elif key == 'lo': lo = int(val)
        elif key == 'hi': hi = int(val)
        elif key == 'k': k = int(val)
        elif key == 'kfrac': kfrac = float(val)
        elif key == 'step': step = int(val)
        elif key == 'ones': ones = int(val)
        elif arg == 'max': total = 200000
        else: mode = arg
    if kfrac is not None:
        k = int(kfrac * (hi - lo))
    assert -LIM <= lo <= hi <= LIM and 0 <= k <= 2 * LIM and 1 <= t <= min(10**4, total) <= 200000
    n_ones = t * ones // 100 if t > 1 else 0
    rest = t - n_ones
    if rest == 0:
        n_ones, rest = t - 1, 1
    left = total - n_ones
    assert left >= rest
    cuts = sorted(rng.sample(range(1, left), rest - 1)) if rest > 1 else []
    lengths = [b - a for a, b in zip([0] + cuts, cuts + [left])] + [1] * n_ones
    rng.shuffle(lengths)
    out = [str(t)]
    for n in lengths:
        if mode == 'rand' or mode == 'sorted':
            a = [rng.randint(lo, hi) for _ in range(n)]
            if mode == 'sorted':
                a.sort()
        elif mode == 'walk':
            a = [rng.randint(lo, hi)]
            for _ in range(n - 1):
                a.append(min(hi, max(lo, a[-1] + rng.randint(-step, step))))
        elif mode == 'blocks':
            a = []
            while len(a) < n:
                a += [rng.randint(lo, hi)] * rng.randint(1, 6)
            a = a[:n]
        else:
            raise SystemExit('unknown mode ' + mode)
        out.append(f'{n} {k}')
        out.append(' '.join(map(str, a)))
    sys.stdout.write('\n'.join(out) + '\n')


main()
