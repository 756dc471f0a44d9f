# O(n log n) per test: max-heap of (dp, index) with lazy removal of stones
# that fell out of the jump window.
import sys
import heapq


def main():
    data = sys.stdin.buffer.read().split()
    t = int(data[0])
    pos = 1
    out = []
    for _ in range(t):
        n = int(data[pos]); k = int(data[pos + 1]); s = data[pos + 2].decode()
        a = list(map(int, data[pos + 3:pos + 3 + n]))
        pos += 3 + n
        reach = [None] * n
        reach[0] = a[0]
        heap = [(-a[0], 0)]
        for i in range(1, n):
            while heap and heap[0][1] < i - k:
                heapq.heappop(heap)
            if s[i] == '#' or not heap:
                continue
            reach[i] = -heap[0][0] + a[i]
            heapq.heappush(heap, (-reach[i], i))
        out.append("IMPOSSIBLE" if reach[n - 1] is None else str(reach[n - 1]))
    print("\n".join(out))


main()
