import sys

data = sys.stdin.buffer.read().split()
t = int(data[0])
pos = 1
out = []
for _ in range(t):
    n, k = int(data[pos]), int(data[pos + 1])
    pos += 2
    pre = [0]
    for i in range(n):
        pre.append(pre[-1] + int(data[pos + i]))
    pos += n
    ans = 0
    for l in range(n):
        pl = pre[l]
        for r in range(l + 1, n + 1):
            if (pre[r] - pl) % k == 0:
                ans += 1
    out.append(ans)
print("\n".join(map(str, out)))
