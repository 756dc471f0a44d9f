# O(n) per test: monotone deque of reachable stones in the last k positions.
import sys
from collections import deque


def main():
    data = sys.stdin.buffer.read().split()
    t = int(data[0])
    pos = 1
    out = []
    for _ in range(t):
        n = int(data[pos]); k = int(data[pos + 1]); s = data[pos + 2]
        a = data[pos + 3:pos + 3 + n]
        pos += 3 + n
        dp = [0] * n
        dp[0] = int(a[0])
        dq = deque([0])
        popleft = dq.popleft
        pop = dq.pop
        push = dq.append
        cracked = 35  # ord('#')
        reach_n = n == 1
        for i in range(1, n):
            lo = i - k
            while dq and dq[0] < lo:
                popleft()
            if s[i] == cracked or not dq:
                continue
            v = dp[dq[0]] + int(a[i])
            dp[i] = v
            while dq and dp[dq[-1]] <= v:
                pop()
            push(i)
            if i == n - 1:
                reach_n = True
        out.append(str(dp[n - 1]) if reach_n else "IMPOSSIBLE")
    sys.stdout.write("\n".join(out) + "\n")


main()
