// zm03 Bakery orders: n, then n lines "t_i w_i".
#include "input_validator.h"

int main() {
    zoo::Reader in;
    long long n = in.line_of({{"n", 1, 200000}})[0];
    for (long long i = 1; i <= n; ++i) in.line_of({{"t", 1, 10000}, {"w", 1, 10000}}, i);
    in.end();
    zoo::accept();
}
