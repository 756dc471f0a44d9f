// zm05 Stepping stones: t test cases, each "n k" (1 <= k <= n), a string s of n characters
// '.' or '#' with s_1 = s_n = '.', and a line of n integers a_i; the sum of n over all test
// cases is at most 2*10^5.
#include "input_validator.h"

int main() {
    zoo::Reader in;
    long long t = in.line_of({{"t", 1, 10000}})[0];
    long long total = 0;
    for (long long c = 1; c <= t; ++c) {
        long long line = in.line();
        long long n = in.integer("n", 1, 200000);
        in.space("k");
        in.integer("k", 1, n);
        in.newline("k");
        in.add_to_total(total, n, 200000, "the sum of n over the test cases", line);
        std::string_view s = in.word("s");
        if (static_cast<long long>(s.size()) != n) {
            zoo::reject(in.where() + "s has " + std::to_string(s.size()) + " characters, n = " + std::to_string(n));
        }
        for (size_t i = 0; i < s.size(); ++i) {
            if (s[i] != '.' && s[i] != '#') {
                zoo::reject(in.where() + "s_" + std::to_string(i + 1) + " = " + zoo::shown(s.substr(i, 1)) +
                            " is neither '.' nor '#'");
            }
        }
        if (s.front() != '.' || s.back() != '.') zoo::reject(in.where() + "s_1 and s_n must be '.' (never cracked)");
        in.newline("s");
        in.integers_line("a", n, -1000000000, 1000000000);
    }
    in.end();
    zoo::accept();
}
