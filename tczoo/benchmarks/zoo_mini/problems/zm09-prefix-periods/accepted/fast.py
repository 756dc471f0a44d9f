# Prefix function; the smallest period of the prefix of length i is i - pi[i-1]. O(|s|).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    t = int(data[0])
    out = []
    for idx in range(1, t + 1):
        s = data[idx]
        n = len(s)
        pi = [0] * n
        total = 1
        k = 0
        for i in range(1, n):
            c = s[i]
            while k and c != s[k]:
                k = pi[k - 1]
            if c == s[k]:
                k += 1
            pi[i] = k
            total += i + 1 - k
        out.append(total)
    sys.stdout.write('\n'.join(map(str, out)) + '\n')


main()
