import sys
from collections import deque

NEG = -10 ** 18


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
        # cracked stones stay in the window with value NEG so the deque never empties
        dp = [NEG] * n
        dp[0] = a[0]
        dq = deque([0])
        for i in range(1, n):
            while dq[0] < i - k:
                dq.popleft()
            if s[i] == '#':
                val = NEG
            else:
                val = dp[dq[0]] + a[i]
            dp[i] = val
            while dq and dp[dq[-1]] <= val:
                dq.pop()
            dq.append(i)
        out.append("IMPOSSIBLE" if dp[n - 1] == NEG else str(dp[n - 1]))
    print("\n".join(out))


main()
