"""Generator for zm06-coin-paths.

usage: python3 gen.py SEED [key=value ...]
  n=N m=M        grid size (default: random shape with n*m <= cells)
  cells=C        bound on n*m for a random shape (default 100)
  shape=S        square (1000 x 1000), wide (1 x 10^6), tall (10^6 x 1),
                 wide2 (2 x 5*10^5), tall2 (5*10^5 x 2)
  wall=P         probability of a wall in a cell (default 0.1)
  digits=D       the digits coins are drawn from (default 0123456789); 'eq' = one random digit
  start=C        character of the start cell (default: drawn like every other cell,
                 but never a wall); 'wall' puts a wall there
  end=C          same for the last cell
  edgewall=K     put K walls at random in the first row and K in the first column
                 (never on the start cell)
  cut            wall off the target: a full anti-diagonal of walls (no path exists)
"""
import random
import sys

LIMIT = 10 ** 6


def main():
    rng = random.Random(int(sys.argv[1]))
    opt = {}
    for a in sys.argv[2:]:
        if '=' in a:
            key, v = a.split('=', 1)
            opt[key] = v
        else:
            opt[a] = True
    shapes = {'square': (1000, 1000), 'wide': (1, LIMIT), 'tall': (LIMIT, 1),
              'wide2': (2, LIMIT // 2), 'tall2': (LIMIT // 2, 2)}
    if 'shape' in opt:
        n, m = shapes[opt['shape']]
    elif 'n' in opt:
        n, m = int(opt['n']), int(opt['m'])
    else:
        cells = int(opt.get('cells', 100))
        n = rng.randint(1, cells)
        m = rng.randint(1, cells // n)
    assert 1 <= n and 1 <= m and n * m <= LIMIT
    wall = float(opt.get('wall', 0.1))
    digits = opt.get('digits', '0123456789')
    if digits == 'eq':
        digits = rng.choice('0123456789')
    g = [[('#' if rng.random() < wall else rng.choice(digits)) for _ in range(m)] for _ in range(n)]
    if 'edgewall' in opt:
        k = int(opt['edgewall'])
        for _ in range(k):
            if m > 1:
                g[0][rng.randint(1, m - 1)] = '#'
            if n > 1:
                g[rng.randint(1, n - 1)][0] = '#'
    if 'cut' in opt and n + m > 3:
        d = rng.randint(1, n + m - 3)
        for i in range(max(0, d - m + 1), min(n - 1, d) + 1):
            g[i][d - i] = '#'
    for (i, j, key) in ((0, 0, 'start'), (n - 1, m - 1, 'end')):
        c = opt.get(key)
        if c == 'wall':
            g[i][j] = '#'
        elif c is not None:
            g[i][j] = c
        elif g[i][j] == '#':
            g[i][j] = rng.choice(digits)
    out = [f'{n} {m}'] + [''.join(r) for r in g]
    sys.stdout.write('\n'.join(out) + '\n')


main()
