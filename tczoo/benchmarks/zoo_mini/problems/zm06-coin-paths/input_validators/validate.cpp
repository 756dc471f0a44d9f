// zm06 Coin paths: "n m" with 1 <= n, m and n*m <= 10^6, then n rows of exactly m
// characters, each a digit or '#'.
#include "input_validator.h"

int main() {
    zoo::Reader in;
    long long n = in.integer("n", 1, 1000000);
    in.space("m");
    long long m = in.integer("m", 1, 1000000);
    if (n * m > 1000000) {
        zoo::reject(in.where() + "n * m = " + std::to_string(n * m) + " is more than 10^6");
    }
    in.newline("m");
    for (long long r = 1; r <= n; ++r) {
        std::string_view row = in.word("row", r);
        if (static_cast<long long>(row.size()) != m) {
            zoo::reject(in.where() + "row " + std::to_string(r) + " has " + std::to_string(row.size()) +
                        " characters, m = " + std::to_string(m));
        }
        for (size_t j = 0; j < row.size(); ++j) {
            if (row[j] != '#' && (row[j] < '0' || row[j] > '9')) {
                zoo::reject(in.where() + "cell (" + std::to_string(r) + ", " + std::to_string(j + 1) + ") is " +
                            zoo::shown(row.substr(j, 1)) + ", neither a digit nor '#'");
            }
        }
        in.newline("row", r);
    }
    in.end();
    zoo::accept();
}
