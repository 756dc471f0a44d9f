# Straightforward loop: running residue, dict of how many earlier prefixes share it.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    t = int(data[0])
    pos = 1
    out = []
    for _ in range(t):
        n, k = int(data[pos]), int(data[pos + 1])
        pos += 2
        seen = {0: 1}
        s = 0
        ans = 0
        for i in range(pos, pos + n):
            s = (s + int(data[i])) % k
            c = seen.get(s, 0)
            ans += c
            seen[s] = c + 1
        pos += n
        out.append(ans)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
