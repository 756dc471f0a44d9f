import sys
from collections import deque


def main():
    data = sys.stdin.buffer.read().split()
    t = int(data[0])
    pos = 1
    out = []
    for _ in range(t):
        n = int(data[pos])
        k = int(data[pos + 1])
        a = list(map(int, data[pos + 2:pos + 2 + n]))
        pos += 2 + n
        mx = deque()
        mn = deque()
        l = 0
        count = 0
        for r in range(n):
            x = a[r]
            while mx and a[mx[-1]] <= x:
                mx.pop()
            mx.append(r)
            while mn and a[mn[-1]] >= x:
                mn.pop()
            mn.append(r)
            if a[mx[0]] - a[mn[0]] > k:
                l += 1
                if mx[0] < l:
                    mx.popleft()
                if mn[0] < l:
                    mn.popleft()
            count += r - l + 1
        out.append(count)
    sys.stdout.write('\n'.join(map(str, out)) + '\n')


main()
