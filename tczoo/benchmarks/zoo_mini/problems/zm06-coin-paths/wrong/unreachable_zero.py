import sys

MOD = 10 ** 9 + 7


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    rows = data[2:2 + n]
    best = [0] * m
    cnt = [0] * m
    for i in range(n):
        row = rows[i]
        for j in range(m):
            ch = row[j]
            if ch == 35:
                best[j] = 0
                cnt[j] = 0
                continue
            if i == 0 and j == 0:
                best[0] = ch - 48
                cnt[0] = 1
                continue
            b, c = best[j], cnt[j]
            if i == 0:
                b, c = 0, 0
            if j > 0:
                if best[j - 1] > b:
                    b, c = best[j - 1], cnt[j - 1]
                elif best[j - 1] == b:
                    c = (c + cnt[j - 1]) % MOD
            best[j] = b + ch - 48
            cnt[j] = c
    if cnt[m - 1] == 0:
        print(-1)
    else:
        print(best[m - 1], cnt[m - 1])


main()
