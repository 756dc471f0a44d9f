"""Deterministic generator for zm09-prefix-periods.

usage: python3 gen.py SEED [MODE] [n=TOTAL] [t=COUNT] [k=ALPHABET]
MODE: rand (default) | periodic | abbb | aab | fib | thue | mixed | max (= rand with n=200000)
n is the total length of all rhythms, t the number of rhythms, k the alphabet size (1..26).
"""
import sys
import random

LETTERS = 'abcdefghijklmnopqrstuvwxyz'
MAX_TOTAL = 200000
MAX_T = 10000


def split_lengths(rng, total, t):
    # t positive parts summing to total
    if t == 1:
        return [total]
    cuts = sorted(rng.sample(range(1, total), t - 1))
    parts = []
    prev = 0
    for c in cuts + [total]:
        parts.append(c - prev)
        prev = c
    return parts


def rand_string(rng, length, k):
    return ''.join(rng.choice(LETTERS[:k]) for _ in range(length))


def periodic_string(rng, length, k):
    # a short block repeated, with a few mutations: many long borders and deep fallbacks
    block = rand_string(rng, rng.randint(1, 6), k)
    s = list((block * (length // len(block) + 1))[:length])
    for _ in range(rng.randint(0, 3)):
        if length > 1:
            s[rng.randrange(length)] = rng.choice(LETTERS[:k])
    return ''.join(s)


def fib_string(length, a='a', b='b'):
    x, y = b, a
    while len(y) < length:
        x, y = y, y + x
    return y[:length]


def thue_string(length):
    return ''.join('ab'[bin(i).count('1') & 1] for i in range(length))


def make(rng, mode, length, k):
    if mode == 'rand':
        return rand_string(rng, length, k)
    if mode == 'periodic':
        return periodic_string(rng, length, k)
    if mode == 'abbb':
        return 'a' + 'b' * (length - 1)
    if mode == 'aab':
        return 'a' * (length - 1) + 'b'
    if mode == 'fib':
        return fib_string(length)
    if mode == 'thue':
        return thue_string(length)
    if mode == 'mixed':
        return make(rng, rng.choice(['rand', 'periodic', 'periodic', 'fib']), length, k)
    raise SystemExit('unknown mode ' + mode)


def main():
    rng = random.Random(int(sys.argv[1]))
    mode, total, t, k = 'rand', 10, 1, 2
    for arg in sys.argv[2:]:
        if arg.startswith('n='):
            total = int(arg[2:])
        elif arg.startswith('t='):
            t = int(arg[2:])
        elif arg.startswith('k='):
            k = int(arg[2:])
        elif arg == 'max':
            total = MAX_TOTAL
        else:
            mode = arg
    assert 1 <= t <= min(MAX_T, total) and total <= MAX_TOTAL and 1 <= k <= 26
    lengths = split_lengths(rng, total, t)
    lines = [str(t)] + [make(rng, mode, length, k) for length in lengths]
    sys.stdout.write('\n'.join(lines) + '\n')


main()
