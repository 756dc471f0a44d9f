"""Generator for zm01: python3 gen.py SEED [ARGS...] prints one input.

ARGS (any order):
  n=N          number of offers (default 10); `max` sets n = 200000
  dmax=D       deadlines uniform in [1, D] (default 10^9, clipped to the constraint)
  dmin=D       lower end of the deadline range (default 1)
  pmin=P pmax=P  fee range (default 1..10^9)
  tight        deadlines in [1, max(1, n // 3)]: many offers compete for few days
  alleq        every offer is the same (d, p), with d in [1, n] and p in [pmin, pmax]
  path         offer i has deadline i and fee falling with i, plus one cheap offer due on
               day n - 1: taking the offers by decreasing fee fills days 1, 2, ... in order,
               which builds a long chain in a "next free day" disjoint-set structure
"""
import sys
import random

N_MAX, D_MAX, P_MAX = 200000, 10**9, 10**9


def main():
    rng = random.Random(int(sys.argv[1]))
    opts = {}
    flags = set()
    for arg in sys.argv[2:]:
        if "=" in arg:
            k, v = arg.split("=", 1)
            opts[k] = int(v)
        else:
            flags.add(arg)
    n = N_MAX if "max" in flags else opts.get("n", 10)
    n = max(1, min(N_MAX, n))
    dmin = max(1, opts.get("dmin", 1))
    dmax = min(D_MAX, opts.get("dmax", D_MAX))
    if "tight" in flags:
        dmax = max(1, n // 3)
    dmin = min(dmin, dmax)
    pmin = max(1, opts.get("pmin", 1))
    pmax = min(P_MAX, opts.get("pmax", P_MAX))
    pmin = min(pmin, pmax)

    if "alleq" in flags:
        d = rng.randint(1, n)
        p = rng.randint(pmin, pmax)
        offers = [(d, p)] * n
    elif "path" in flags:
        offers = [(i, P_MAX - i) for i in range(1, n)]
        offers.append((max(1, n - 1), 1))
        rng.shuffle(offers)
    else:
        offers = [(rng.randint(dmin, dmax), rng.randint(pmin, pmax)) for _ in range(n)]

    out = [str(n)]
    out.extend(f"{d} {p}" for d, p in offers)
    sys.stdout.write("\n".join(out) + "\n")


main()
