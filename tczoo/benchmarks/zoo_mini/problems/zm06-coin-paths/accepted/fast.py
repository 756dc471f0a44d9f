# O(n*m) time, O(m) memory: rolling rows of (best coins, number of best paths).
import sys

MOD = 10 ** 9 + 7


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    rows = data[2:2 + n]
    best = [-1] * m
    cnt = [0] * m
    first = True
    for row in rows:
        # left neighbour of column 0 is outside the grid: unreachable
        lb, lc = -1, 0
        if first:
            lb, lc = 0, 1  # a virtual predecessor of the start cell
            best[0] = -1
            first = False
        j = 0
        for ch in row:
            if ch == 35:  # '#'
                lb = -1
                lc = 0
                best[j] = -1
                cnt[j] = 0
            else:
                ub = best[j]
                if ub > lb:
                    lb = ub
                    lc = cnt[j]
                elif ub == lb and ub >= 0:
                    lc += cnt[j]
                    if lc >= MOD:
                        lc -= MOD
                if lb >= 0:
                    lb += ch - 48
                    best[j] = lb
                    cnt[j] = lc
                else:
                    best[j] = -1
                    cnt[j] = 0
            j += 1
    if best[m - 1] < 0:
        print(-1)
    else:
        print(best[m - 1], cnt[m - 1])


main()
