"""Generator for zm02: python3 gen.py SEED [ARGS...] prints one input.

ARGS (any order):
  t=T            number of test cases (default 1, at most 10^4)
  N=S            total length over all test cases (default 10); `max` sets S = 200000
  even           split S evenly between the test cases (default: random split, each n >= 1)
  kmin=, kmax=   range of k (default 1..10^9)
  amin=, amax=   range of a_i (default -10^9..10^9)
  mult           every a_i is a multiple of its test's k (all prefix sums are divisible)
  pow2           k is a power of two in [kmin, kmax] (falls back to kmin if there is none)
  k1at=I         test case number I (0-based) gets k = 1
"""
import sys
import random

T_MAX, N_MAX, K_MAX, A_MAX = 10**4, 200000, 10**9, 10**9


def main():
    rng = random.Random(int(sys.argv[1]))
    opts, flags = {}, set()
    for arg in sys.argv[2:]:
        if "=" in arg:
            key, val = arg.split("=", 1)
            opts[key] = int(val)
        else:
            flags.add(arg)
    total = N_MAX if "max" in flags else opts.get("N", 10)
    total = max(1, min(N_MAX, total))
    t = max(1, min(T_MAX, opts.get("t", 1), total))
    kmin = max(1, opts.get("kmin", 1))
    kmax = min(K_MAX, opts.get("kmax", K_MAX))
    kmin = min(kmin, kmax)
    amin = max(-A_MAX, opts.get("amin", -A_MAX))
    amax = min(A_MAX, opts.get("amax", A_MAX))
    amin = min(amin, amax)

    if "even" in flags:
        sizes = [total // t + (1 if i < total % t else 0) for i in range(t)]
    else:
        cuts = sorted(rng.sample(range(1, total), t - 1)) if t > 1 else []
        bounds = [0] + cuts + [total]
        sizes = [bounds[i + 1] - bounds[i] for i in range(t)]

    out = [str(t)]
    for case, n in enumerate(sizes):
        if "pow2" in flags:
            powers = [1 << e for e in range(31) if kmin <= (1 << e) <= kmax]
            k = rng.choice(powers) if powers else kmin
        else:
            k = rng.randint(kmin, kmax)
        if opts.get("k1at") == case:
            k = 1
        if "mult" in flags:
            lo = -(A_MAX // k) if amin < 0 else 0
            hi = A_MAX // k
            a = [k * rng.randint(lo, hi) for _ in range(n)]
        else:
            a = [rng.randint(amin, amax) for _ in range(n)]
        out.append(f"{n} {k}")
        out.append(" ".join(map(str, a)))
    sys.stdout.write("\n".join(out) + "\n")


main()
