// zm10 Subset gcd sum: n, then a line of n integers a_i.
#include "input_validator.h"

int main() {
    zoo::Reader in;
    long long n = in.line_of({{"n", 1, 200000}})[0];
    in.integers_line("a", n, 1, 500000);
    in.end();
    zoo::accept();
}
