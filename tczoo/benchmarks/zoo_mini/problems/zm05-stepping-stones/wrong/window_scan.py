import sys

NEG = float('-inf')


def main():
    data = sys.stdin.buffer.read().split()
    t = int(data[0])
    pos = 1
    out = []
    for _ in range(t):
        n, k = int(data[pos]), int(data[pos + 1])
        s = data[pos + 2].decode()
        a = list(map(int, data[pos + 3:pos + 3 + n]))
        pos += 3 + n
        dp = [NEG] * n
        dp[0] = a[0]
        for i in range(1, n):
            if s[i] == '.':
                best = NEG
                for j in range(max(0, i - k), i):
                    if dp[j] > best:
                        best = dp[j]
                dp[i] = best + a[i]
        out.append("IMPOSSIBLE" if dp[n - 1] == NEG else str(dp[n - 1]))
    print("\n".join(out))


main()
