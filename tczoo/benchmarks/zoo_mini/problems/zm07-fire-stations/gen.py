"""Generator for zm07-fire-stations.

usage: python3 gen.py SEED [key=value ...] [max]
  n=N m=M k=K      sizes (defaults 10, 15, 2); max = n=m=2*10^5, q=10^5
  q=Q              number of queries (default 10)
  shape=S          rand (default), tree (random tree plus extra edges),
                   path (a path 1-2-...-n, stations at the front), comp (several
                   components, only some with a station), hub (a chain feeding a hub
                   whose tentative distance drops every time a chain vertex is settled),
                   multi (few vertex pairs, many parallel roads and self-loops)
  wmin=A wmax=B    road lengths uniform in [A, B] (default 1..10^9)
  qmode=Q          mix (default: 0, 10^18, exact distances and distances +-1, random
                   powers of ten), exact (only exact distances), off (distances +-1 and
                   powers of ten, never equal to a distance), rand (uniform [0, 10^18])
  bigq             add the query 10^18 (mix does too)
"""
import random
import sys
from heapq import heappush, heappop

XMAX = 10 ** 18


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
        for key, v in (('n', 200000), ('m', 200000), ('q', 100000)):
            opt.setdefault(key, str(v))
    n = int(opt.get('n', 10))
    m = int(opt.get('m', 15))
    k = int(opt.get('k', 2))
    q = int(opt.get('q', 10))
    wmin = int(opt.get('wmin', 1))
    wmax = int(opt.get('wmax', 10 ** 9))
    shape = opt.get('shape', 'rand')
    W = lambda: rng.randint(wmin, wmax)

    edges = []
    stations = None
    if shape == 'rand':
        edges = [(rng.randint(1, n), rng.randint(1, n), W()) for _ in range(m)]
    elif shape == 'tree':
        perm = list(range(1, n + 1))
        rng.shuffle(perm)
        for i in range(1, n):
            if len(edges) < m:
                edges.append((perm[i], perm[rng.randint(max(0, i - 5), i - 1)], W()))
        while len(edges) < m:
            edges.append((rng.randint(1, n), rng.randint(1, n), W()))
    elif shape == 'path':
        edges = [(i, i + 1, W()) for i in range(1, min(n, m + 1))]
        while len(edges) < m:
            u = rng.randint(1, n)
            edges.append((u, min(n, u + rng.randint(1, 3)), wmax))
        stations = list(range(1, k + 1))
    elif shape == 'comp':
        c = int(opt.get('c', 4))
        cut = sorted(rng.sample(range(2, n + 1), c - 1)) if n >= c else []
        bounds = [1] + cut + [n + 1]
        comps = [list(range(bounds[i], bounds[i + 1])) for i in range(len(bounds) - 1)]
        comps = [cp for cp in comps if cp]
        for _ in range(m):
            cp = rng.choice(comps)
            edges.append((rng.choice(cp), rng.choice(cp), W()))
        lit = comps[:max(1, len(comps) // 2)]
        pool = [v for cp in lit for v in cp]
        stations = rng.sample(pool, min(k, len(pool)))
    elif shape == 'hub':
        # vertex 1 is the station, 2..K+1 a chain with unit roads, hub = n.
        K = min((m - 1) // 2, n - 2)
        hub = n
        for i in range(1, K + 1):
            edges.append((i, i + 1, 1))
            # settling chain vertex i+1 (distance i) improves the hub to 10^9 - i - 1
            edges.append((i + 1, hub, 10 ** 9 - 2 * i - 1))
        while len(edges) < m:
            edges.append((hub, rng.randint(1, n), 10 ** 9))
        stations = [1]
        k = 1
    elif shape == 'multi':
        pairs = [(rng.randint(1, n), rng.randint(1, n)) for _ in range(max(1, n // 2))]
        for _ in range(m):
            u, v = rng.choice(pairs)
            edges.append((u, v, W()))
    else:
        raise SystemExit('unknown shape')
    rng.shuffle(edges)
    edges = [(u, v, w) if rng.random() < 0.5 else (v, u, w) for (u, v, w) in edges]
    if stations is None:
        stations = rng.sample(range(1, n + 1), k)
    k = len(stations)
    assert len(edges) == m

    qmode = opt.get('qmode', 'mix')
    xs = []
    if qmode == 'rand':
        xs = [rng.randint(0, XMAX) for _ in range(q)]
    else:
        adj = [[] for _ in range(n + 1)]
        for u, v, w in edges:
            adj[u].append((v, w))
            adj[v].append((u, w))
        dist = [None] * (n + 1)
        heap = [(0, s) for s in stations]
        while heap:
            d, u = heappop(heap)
            if dist[u] is not None:
                continue
            dist[u] = d
            for v, w in adj[u]:
                if dist[v] is None:
                    heappush(heap, (d + w, v))
        fin = [d for d in dist[1:] if d is not None]
        finset = set(fin)
        for _ in range(q):
            if qmode == 'off':
                while True:
                    if rng.random() < 0.7:
                        x = max(0, rng.choice(fin) + rng.choice((-1, 1)))
                    else:
                        x = rng.randint(0, 10 ** rng.randint(0, 18))
                    if x not in finset:
                        break
                xs.append(x)
                continue
            r = rng.random()
            if qmode == 'exact' or r < 0.5:
                x = rng.choice(fin)
            elif r < 0.75:
                x = max(0, rng.choice(fin) + rng.choice((-1, 1)))
            elif r < 0.95:
                x = rng.randint(0, 10 ** rng.randint(0, 18))
            else:
                x = rng.choice((0, XMAX))
            xs.append(x)
        if qmode == 'mix' and q >= 2:
            xs[rng.randrange(q)] = XMAX
    if 'bigq' in opt:
        xs[-1] = XMAX
    out = [f'{n} {m} {k}', ' '.join(map(str, stations))]
    out += [f'{u} {v} {w}' for u, v, w in edges]
    out += [str(q), ' '.join(map(str, xs))]
    sys.stdout.write('\n'.join(out) + '\n')


main()
