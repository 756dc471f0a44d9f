// zm09 Prefix periods: t, then t lines of non-empty lowercase strings whose total length
// is at most 2*10^5.
#include "input_validator.h"

int main() {
    zoo::Reader in;
    long long t = in.line_of({{"t", 1, 10000}})[0];
    long long total = 0;
    for (long long i = 1; i <= t; ++i) {
        long long line = in.line();
        std::string_view s = in.word_line("s", i);
        for (size_t j = 0; j < s.size(); ++j) {
            if (s[j] < 'a' || s[j] > 'z') {
                zoo::reject("line " + std::to_string(line) + ": rhythm " + std::to_string(i) + " has " +
                            zoo::shown(s.substr(j, 1)) + " at position " + std::to_string(j + 1) +
                            ", not a lowercase Latin letter");
            }
        }
        in.add_to_total(total, static_cast<long long>(s.size()), 200000, "the total length of the rhythms", line);
    }
    in.end();
    zoo::accept();
}
