"""Generator for zm05-stepping-stones.

usage: python3 gen.py SEED [key=value ...] [max]
  t=T          number of test cases (default 1)
  n=N          upper bound on n per test (n is uniform in [1, N] unless fixn)
  fixn         every test has n = N exactly
  sum=S        total n over all tests (default 2*10^5 cap, never exceeded)
  k=K          jump length: a number, 'rand' (uniform in [1, n]), 'big' (in [n/2, n]),
               'small' (in [1, 3])
  crack=P      probability that an inner stone is cracked (default 0.2)
  gap=G        per test, with probability 1/2 put a run of exactly k ('wall', impossible)
               or k-1 ('squeeze') cracked stones; G in {wall, squeeze, mix}
  safe         break every run of >= k cracked stones (stone n stays reachable, unless gap)
  vals=V       mix (default, in [-10^9, 10^9]), pos, neg, big (all 10^9), small (|a|<=10),
               eq (all equal to one random value), negbig (all in [-10^9, -9*10^8])
  max          shorthand for t=1 n=200000 fixn
"""
import random
import sys

MAXSUM = 200000


def main():
    rng = random.Random(int(sys.argv[1]))
    opt = {}
    for a in sys.argv[2:]:
        if '=' in a:
            key, v = a.split('=', 1)
            opt[key] = v
        else:
            opt[a] = True
    if 'max' in opt:
        opt.setdefault('t', '1')
        opt.setdefault('n', str(MAXSUM))
        opt['fixn'] = True
    t = int(opt.get('t', 1))
    nmax = int(opt.get('n', 10))
    total = min(int(opt.get('sum', MAXSUM)), MAXSUM)
    kmode = opt.get('k', 'rand')
    crack = float(opt.get('crack', 0.2))
    gap = opt.get('gap')
    vals = opt.get('vals', 'mix')
    assert 1 <= t <= 10 ** 4 and t <= total

    out = [str(t)]
    left = total
    for case in range(t):
        remaining_cases = t - case - 1
        cap = min(nmax, left - remaining_cases)
        n = cap if 'fixn' in opt else rng.randint(1, cap)
        left -= n
        if kmode == 'rand':
            k = rng.randint(1, n)
        elif kmode == 'big':
            k = rng.randint(max(1, n // 2), n)
        elif kmode == 'small':
            k = rng.randint(1, min(3, n))
        else:
            k = min(int(kmode), n)
        s = ['#' if rng.random() < crack else '.' for _ in range(n)]
        if 'safe' in opt:
            run = 0
            for j in range(n):
                run = run + 1 if s[j] == '#' else 0
                if run >= k:
                    s[j] = '.'
                    run = 0
        if gap and n >= 3:
            kind = gap if gap != 'mix' else rng.choice(['wall', 'squeeze'])
            run = k if kind == 'wall' else k - 1
            if 1 <= run <= n - 2:
                st = rng.randint(1, n - 1 - run)
                for j in range(st, st + run):
                    s[j] = '#'
        s[0] = s[-1] = '.'
        if vals == 'mix':
            a = [rng.randint(-10 ** 9, 10 ** 9) for _ in range(n)]
        elif vals == 'pos':
            a = [rng.randint(1, 10 ** 9) for _ in range(n)]
        elif vals == 'neg':
            a = [rng.randint(-10 ** 9, -1) for _ in range(n)]
        elif vals == 'negbig':
            a = [rng.randint(-10 ** 9, -9 * 10 ** 8) for _ in range(n)]
        elif vals == 'big':
            a = [10 ** 9] * n
        elif vals == 'small':
            a = [rng.randint(-10, 10) for _ in range(n)]
        elif vals == 'eq':
            a = [rng.randint(-10 ** 9, 10 ** 9)] * n
        else:
            raise SystemExit('unknown vals ' + vals)
        out.append(f'{n} {k}')
        out.append(''.join(s))
        out.append(' '.join(map(str, a)))
    sys.stdout.write('\n'.join(out) + '\n')


main()
