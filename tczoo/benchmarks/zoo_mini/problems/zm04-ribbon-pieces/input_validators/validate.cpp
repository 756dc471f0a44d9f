// zm04 Ribbon pieces: "n k", then a line of n integers a_i.
#include "input_validator.h"

int main() {
    zoo::Reader in;
    auto nk = in.line_of({{"n", 1, 200000}, {"k", 1, 1000000000000000LL}});
    in.integers_line("a", nk[0], 1, 1000000000);
    in.end();
    zoo::accept();
}
