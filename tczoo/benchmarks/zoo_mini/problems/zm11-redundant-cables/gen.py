"""Deterministic generator for zm11-redundant-cables.

usage: python3 gen.py SEED [MODE] [n=N] [m=M] [loops=L] [dups=D] [isolast] [ordered] [max]
MODE (the base graph, before loops and duplicates are added):
  rand     m - loops - dups random cables between distinct stations (default)
  forest   a random forest with about n / comp networks (comp=C, default 5), as many cables as fit
  path     the path 1-2-3-...-n (cables listed in order when 'ordered' is given)
  smalls   many tiny networks: single stations, pairs, triangles, short paths
  star     station 1 joined to every other station
Then 'loops' loop cables and 'dups' copies of already present cables are added.
isolast:  station n gets no cable except possibly loops (it forms its own network).
ordered:  keep stations unrelabelled and cables in construction order (otherwise shuffled).
max:      n = m = 200000 unless given.
"""
import sys
import random

MAX = 200000


def main():
    rng = random.Random(int(sys.argv[1]))
    mode, n, m, loops, dups, comp = 'rand', None, None, 0, 0, 5
    isolast = ordered = False
    for arg in sys.argv[2:]:
        key, _, val = arg.partition('=')
        if key == 'n': n = int(val)
        elif key == 'm': m = int(val)
        elif key == 'loops': loops = int(val)
        elif key == 'dups': dups = int(val)
        elif key == 'comp': comp = int(val)
        elif arg == 'isolast': isolast = True
        elif arg == 'ordered': ordered = True
        elif arg == 'max':
            n = MAX if n is None else n
            m = MAX if m is None else m
        else: mode = arg
    n = 10 if n is None else n
    k = n - 1 if isolast else n  # stations that may get ordinary cables
    edges = []
    if mode == 'rand':
        target = (m if m is not None else n) - loops - dups
        if k >= 2:
            for _ in range(max(0, target)):
                u = rng.randint(1, k)
                v = rng.randint(1, k - 1)
                if v >= u:
                    v += 1
                edges.append((u, v))
    elif mode == 'forest':
        order = list(range(1, k + 1))
        rng.shuffle(order)
        for i in range(1, len(order)):
            if rng.randrange(comp) != 0:  # otherwise order[i] starts a new network
                edges.append((order[rng.randrange(max(0, i - 50), i)], order[i]))
    elif mode == 'path':
        edges = [(i, i + 1) for i in range(1, k)]
    elif mode == 'smalls':
        v = 1
        while v <= k:
            size = min(rng.choice([1, 1, 2, 2, 3, 3, 4]), k - v + 1)
            grp = list(range(v, v + size))
            for a, b in zip(grp, grp[1:]):
                edges.append((a, b))
            if size == 3 and rng.random() < 0.5:
                edges.append((grp[0], grp[2]))
            v += size
    elif mode == 'star':
        edges = [(1, i) for i in range(2, k + 1)]
    else:
        raise SystemExit('unknown mode ' + mode)
    for _ in range(dups):
        if edges:
            edges.append(rng.choice(edges))
    for _ in range(loops):
        v = n if isolast and rng.random() < 0.3 else rng.randint(1, n)
        edges.append((v, v))
    if m is not None and mode != 'rand':
        edges = edges[:m]
    assert len(edges) <= MAX and 1 <= n <= MAX
    if not ordered:
        perm = list(range(1, n + 1))
        inner = perm[:k]
        rng.shuffle(inner)
        perm = [0] + inner + perm[k:]
        edges = [(perm[u], perm[v]) for u, v in edges]
        rng.shuffle(edges)
        edges = [(v, u) if rng.random() < 0.5 else (u, v) for u, v in edges]
    out = [f'{n} {len(edges)}'] + [f'{u} {v}' for u, v in edges]
    sys.stdout.write('\n'.join(out) + '\n')


main()
