"""Generator for zm08-best-district.

usage: python3 gen.py SEED [key=value ...] [max]
  n=N            number of towns (default 10); max = 2*10^5
  shape=S        rand (parent uniform among earlier towns, default), deep (parent among
                 the 3 previous towns), path (town 1 at one end), star (centre random),
                 caterpillar (a spine with leaves), broom (a long path ending in a star)
  labels=L       shuffle (default: random labels, town 1 anywhere except where the
                 shape pins it), keep (town i's parent has a smaller label, root 1)
  orient=O       shuffle (default: each road printed in random direction), parent
                 (parent first), child (child first)
  vals=V         mix (default [-10^9, 10^9]), neg, pos, big (10^9), small ([-5, 5]),
                 negbig ([-10^9, -9*10^8]), sparse (mostly -10^9, 10% in [0, 10^9])
"""
import random
import sys


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
        opt.setdefault('n', '200000')
    n = int(opt.get('n', 10))
    shape = opt.get('shape', 'rand')
    # parent[i] for i in 1..n-1 over internal ids 0..n-1, root id 0
    par = [None] * n
    if shape == 'rand':
        for i in range(1, n):
            par[i] = rng.randrange(i)
    elif shape == 'deep':
        for i in range(1, n):
            par[i] = rng.randint(max(0, i - 3), i - 1)
    elif shape == 'path':
        for i in range(1, n):
            par[i] = i - 1
    elif shape == 'star':
        for i in range(1, n):
            par[i] = 0
    elif shape == 'caterpillar':
        spine = max(1, n // 2)
        for i in range(1, n):
            par[i] = i - 1 if i < spine else rng.randrange(spine)
    elif shape == 'broom':
        handle = max(1, n // 2)
        for i in range(1, n):
            par[i] = i - 1 if i < handle else handle - 1
    else:
        raise SystemExit('unknown shape')
    labels = opt.get('labels', 'shuffle')
    lab = list(range(1, n + 1))
    if labels == 'shuffle':
        rng.shuffle(lab)
        if shape in ('path', 'broom') and n > 1:
            # town 1 at the far end of the path: the deepest possible rooting
            j = lab.index(1)
            lab[0], lab[j] = lab[j], lab[0]
    vals = opt.get('vals', 'mix')
    if vals == 'mix':
        a = [rng.randint(-10 ** 9, 10 ** 9) for _ in range(n)]
    elif vals == 'neg':
        a = [rng.randint(-10 ** 9, -1) for _ in range(n)]
    elif vals == 'pos':
        a = [rng.randint(1, 10 ** 9) for _ in range(n)]
    elif vals == 'big':
        a = [10 ** 9] * n
    elif vals == 'small':
        a = [rng.randint(-5, 5) for _ in range(n)]
    elif vals == 'negbig':
        a = [rng.randint(-10 ** 9, -9 * 10 ** 8) for _ in range(n)]
    elif vals == 'sparse':
        a = [rng.randint(0, 10 ** 9) if rng.random() < 0.1 else -10 ** 9 for _ in range(n)]
    else:
        raise SystemExit('unknown vals')
    town_val = [0] * (n + 1)
    for i in range(n):
        town_val[lab[i]] = a[i]
    orient = opt.get('orient', 'shuffle')
    edges = []
    for i in range(1, n):
        p, c = lab[par[i]], lab[i]
        if orient == 'parent' or (orient == 'shuffle' and rng.random() < 0.5):
            edges.append((p, c))
        else:
            edges.append((c, p))
    if orient == 'shuffle':
        rng.shuffle(edges)
    out = [str(n), ' '.join(map(str, town_val[1:]))] + [f'{u} {v}' for u, v in edges]
    sys.stdout.write('\n'.join(out) + '\n')


main()
