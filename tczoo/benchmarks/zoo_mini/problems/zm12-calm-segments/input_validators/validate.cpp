// zm12 Calm segments: t test cases, each "n k" and a line of n integers a_i;
// the sum of n over all test cases is at most 2*10^5.
#include "input_validator.h"

int main() {
    zoo::Reader in;
    long long t = in.line_of({{"t", 1, 10000}})[0];
    long long total = 0;
    for (long long c = 1; c <= t; ++c) {
        long long line = in.line();
        auto nk = in.line_of({{"n", 1, 200000}, {"k", 0, 2000000000}});
        in.add_to_total(total, nk[0], 200000, "the sum of n over the test cases", line);
        in.integers_line("a", nk[0], -1000000000, 1000000000);
    }
    in.end();
    zoo::accept();
}
