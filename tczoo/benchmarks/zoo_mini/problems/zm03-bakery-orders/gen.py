"""Generator for zm03: python3 gen.py SEED [ARGS...] prints one input.

ARGS (any order):
  n=N            number of orders (default 10); `max` sets n = 200000
  tmin=, tmax=   range of t_i (default 1..10^4)
  wmin=, wmax=   range of w_i (default 1..10^4)
  alleq          every order is the same (t, w)
  ties           ratios t/w come from a handful of fractions p/q, scaled by random factors,
                 so many orders have equal ratios but different t and w
  sorted         print the orders already in the optimal (t/w ascending) order
"""
import sys
import random

N_MAX, V_MAX = 200000, 10**4


def main():
    rng = random.Random(int(sys.argv[1]))
    opts, flags = {}, set()
    for arg in sys.argv[2:]:
        if "=" in arg:
            key, val = arg.split("=", 1)
            opts[key] = int(val)
        else:
            flags.add(arg)
    n = N_MAX if "max" in flags else opts.get("n", 10)
    n = max(1, min(N_MAX, n))
    tmin, tmax = max(1, opts.get("tmin", 1)), min(V_MAX, opts.get("tmax", V_MAX))
    wmin, wmax = max(1, opts.get("wmin", 1)), min(V_MAX, opts.get("wmax", V_MAX))
    tmin, wmin = min(tmin, tmax), min(wmin, wmax)

    if "alleq" in flags:
        job = (rng.randint(tmin, tmax), rng.randint(wmin, wmax))
        jobs = [job] * n
    elif "ties" in flags:
        fracs = [(rng.randint(1, 7), rng.randint(1, 7)) for _ in range(5)]
        jobs = []
        for _ in range(n):
            p, q = rng.choice(fracs)
            m = rng.randint(1, V_MAX // max(p, q))
            jobs.append((p * m, q * m))
    else:
        jobs = [(rng.randint(tmin, tmax), rng.randint(wmin, wmax)) for _ in range(n)]
    if "sorted" in flags:
        jobs.sort(key=lambda j: j[0] * 10**9 // j[1])

    out = [str(n)]
    out.extend(f"{t} {w}" for t, w in jobs)
    sys.stdout.write("\n".join(out) + "\n")


main()
