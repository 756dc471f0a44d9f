// zm08 Best district: n, a line of n profits a_i, then n - 1 roads "u v" (u != v) that
// form a tree.
#include "input_validator.h"

#include <numeric>

int main() {
    zoo::Reader in;
    long long n = in.line_of({{"n", 1, 200000}})[0];
    in.integers_line("a", n, -1000000000, 1000000000);
    // n - 1 edges without a cycle form a tree: a union-find finds the first cycle.
    std::vector<int> parent(static_cast<size_t>(n) + 1);
    std::iota(parent.begin(), parent.end(), 0);
    auto root = [&](int x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    };
    for (long long i = 1; i < n; ++i) {
        long long line = in.line();
        auto uv = in.line_of({{"u", 1, n}, {"v", 1, n}}, i);
        if (uv[0] == uv[1]) {
            zoo::reject("line " + std::to_string(line) + ": road " + std::to_string(i) + " joins town " +
                        std::to_string(uv[0]) + " to itself");
        }
        int a = root(static_cast<int>(uv[0])), b = root(static_cast<int>(uv[1]));
        if (a == b) {
            zoo::reject("line " + std::to_string(line) + ": road " + std::to_string(i) + " (" +
                        std::to_string(uv[0]) + " " + std::to_string(uv[1]) +
                        ") closes a cycle: the roads do not form a tree");
        }
        parent[a] = b;
    }
    in.end();
    zoo::accept();
}
