# Deadline order + min-heap of accepted fees; drop the cheapest when over capacity. O(n log n).
import sys
import heapq


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    d = data[1:2 * n + 1:2]
    p = data[2:2 * n + 1:2]
    offers = sorted(zip(map(int, d), map(int, p)))
    kept = []
    push = heapq.heappush
    pushpop = heapq.heappushpop
    for dl, fee in offers:
        if len(kept) < dl:
            push(kept, fee)
        elif kept and kept[0] < fee:
            pushpop(kept, fee)
    print(sum(kept))


main()
