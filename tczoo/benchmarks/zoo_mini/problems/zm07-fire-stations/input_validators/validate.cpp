// zm07 Fire stations: "n m k", k distinct stations s_i in [1, n], m roads "u v w",
// then q and a line of q distances x_j.
#include "input_validator.h"

int main() {
    zoo::Reader in;
    long long n = in.integer("n", 1, 200000);
    in.space("m");
    long long m = in.integer("m", 0, 200000);
    in.space("k");
    long long k = in.integer("k", 1, n);
    in.newline("k");
    std::vector<bool> station(static_cast<size_t>(n) + 1, false);
    for (long long i = 1; i <= k; ++i) {
        if (i > 1) in.space("s", i);
        long long s = in.integer("s", 1, n, i);
        if (station[s]) zoo::reject(in.where() + "junction " + std::to_string(s) + " is listed twice among the stations");
        station[s] = true;
    }
    in.newline("s", k);
    for (long long i = 1; i <= m; ++i) in.line_of({{"u", 1, n}, {"v", 1, n}, {"w", 1, 1000000000}}, i);
    long long q = in.line_of({{"q", 1, 100000}})[0];
    in.integers_line("x", q, 0, 1000000000000000000LL);
    in.end();
    zoo::accept();
}
