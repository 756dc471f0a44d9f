import sys
from collections import defaultdict

data = sys.stdin.buffer.read().split()
t = int(data[0])
pos = 1
for _ in range(t):
    n, k = int(data[pos]), int(data[pos + 1])
    pos += 2
    seen = defaultdict(int)
    seen[0] = 1
    s = 0
    ans = 0
    for i in range(n):
        s += int(data[pos + i])
        r = abs(s) % k  # keep the remainder non-negative
        ans += seen[r]
        seen[r] += 1
    pos += n
    print(ans)
