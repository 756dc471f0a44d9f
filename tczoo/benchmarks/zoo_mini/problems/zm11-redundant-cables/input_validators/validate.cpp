// zm11 Redundant cables: "n m", then m lines "u v" (loops and repeated pairs allowed).
#include "input_validator.h"

int main() {
    zoo::Reader in;
    auto nm = in.line_of({{"n", 1, 200000}, {"m", 0, 200000}});
    for (long long i = 1; i <= nm[1]; ++i) in.line_of({{"u", 1, nm[0]}, {"v", 1, nm[0]}}, i);
    in.end();
    zoo::accept();
}
