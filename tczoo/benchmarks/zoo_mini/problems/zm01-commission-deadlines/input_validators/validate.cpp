// zm01 Commission deadlines: n, then n lines "d_i p_i".
#include "input_validator.h"

int main() {
    zoo::Reader in;
    long long n = in.line_of({{"n", 1, 200000}})[0];
    for (long long i = 1; i <= n; ++i) in.line_of({{"d", 1, 1000000000}, {"p", 1, 1000000000}}, i);
    in.end();
    zoo::accept();
}
