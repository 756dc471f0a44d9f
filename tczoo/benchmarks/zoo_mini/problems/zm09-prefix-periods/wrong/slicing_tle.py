import sys


def main():
    t = int(sys.stdin.readline())
    out = []
    for _ in range(t):
        s = list(sys.stdin.readline().strip())
        n = len(s)
        total = 0
        p = 1
        for i in range(1, n + 1):
            # p stays a period of s[:i] while the shifted copies agree
            while p < i and s[:i - p] != s[p:i]:
                p += 1
            total += p
        out.append(total)
    print('\n'.join(map(str, out)))


main()
