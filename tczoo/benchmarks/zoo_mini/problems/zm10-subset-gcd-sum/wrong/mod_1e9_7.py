import sys

MOD = 10**9 + 7


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1:n + 1]))
    m = max(a)
    freq = [0] * (m + 1)
    for v in a:
        freq[v] += 1
    pw = [1] * (n + 1)
    for i in range(1, n + 1):
        pw[i] = pw[i - 1] * 2 % MOD
    e = [0] * (m + 1)
    ans = 0
    for d in range(m, 0, -1):
        c = sum(freq[d::d])
        if c == 0:
            continue
        v = (pw[c] - 1 - sum(e[2 * d::d])) % MOD
        e[d] = v
        ans += d * v
    print(ans % MOD)


main()
