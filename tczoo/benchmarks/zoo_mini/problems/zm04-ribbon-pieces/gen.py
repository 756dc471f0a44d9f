"""Generator for zm04: python3 gen.py SEED [ARGS...] prints one input.

ARGS (any order):
  n=N            number of ribbons (default 10); `max` sets n = 200000
  amin=, amax=   range of the lengths a_i (default 1..10^9)
  alleq          all ribbons have the same length
  k=K            exactly this k (clipped to [1, 10^15])
  ksmall         k uniform in [1, n]        (long pieces: the answer is large)
  kbig           k uniform in [S/2, S]      (S = total length; the answer is 1 or 2)
  kimp           k uniform in [S+1, S+10^6] (impossible: the answer is 0)
  (default)      k uniform in [1, S]
"""
import sys
import random

N_MAX, A_MAX, K_MAX = 200000, 10**9, 10**15


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
    amin = max(1, opts.get("amin", 1))
    amax = min(A_MAX, opts.get("amax", A_MAX))
    amin = min(amin, amax)
    if "alleq" in flags:
        a = [rng.randint(amin, amax)] * n
    else:
        a = [rng.randint(amin, amax) for _ in range(n)]
    s = sum(a)
    if "k" in opts:
        k = opts["k"]
    elif "ksmall" in flags:
        k = rng.randint(1, n)
    elif "kbig" in flags:
        k = rng.randint(max(1, s // 2), s)
    elif "kimp" in flags:
        k = rng.randint(s + 1, s + 10**6)
    else:
        k = rng.randint(1, s)
    k = max(1, min(K_MAX, k))
    sys.stdout.write(f"{n} {k}\n" + " ".join(map(str, a)) + "\n")


main()
