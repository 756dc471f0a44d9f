// The reader every zoo-mini input validator includes (one place for the token syntax,
// the whitespace policy and the messages).
//
// The zoo-mini loader pastes this file in place of the line `#include "input_validator.h"`,
// so the validator the sandbox compiles is one self-contained source file. By hand:
//   g++ -O2 -std=c++17 -I tczoo/benchmarks/zoo_mini -o v problems/zm01-.../input_validators/validate.cpp
//   ./v < some.in; echo $?          # 42: valid, 43: invalid (the reason is on stderr)
//
// Protocol: the Kattis/ICPC input validator's (input on stdin; exit 42 = valid, exit 43 =
// invalid, with a one-line reason on stderr).
//
// Whitespace policy (docs/zoo-mini.md, "Input validators"). Lines are the pieces between
// "\n"s; a last piece without its "\n" is a line too (a missing final newline is accepted:
// Kattis validators would reject it, we deliberately do not). Each line first loses one "\r"
// at its end (CRLF line ends) and then its trailing spaces and tabs. Everything else is
// strict: tokens on a line are separated by exactly one space, a line neither starts with a
// space nor is empty, integers are written plainly (an optional '-', no '+', no leading
// zero unless the value is 0, no "-0"), and nothing follows the last expected line (not
// even an empty line).

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace zoo {

constexpr int VALID = 42, INVALID = 43;

[[noreturn]] inline void reject(const std::string& why) {
    std::fprintf(stderr, "%s\n", why.c_str());
    std::fflush(stderr);
    std::_Exit(INVALID);
}

[[noreturn]] inline void accept() {
    std::_Exit(VALID);
}

// A token as a message shows it: at most 24 characters, anything unprintable as \xNN.
inline std::string shown(std::string_view token) {
    std::string out = "'";
    size_t n = 0;
    for (unsigned char c : token) {
        if (++n > 24) {
            out += "...";
            break;
        }
        if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') {
            out += static_cast<char>(c);
        } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", c);
            out += hex;
        }
    }
    return out + "'";
}

// One integer field of a line: its name in messages and its inclusive range.
struct Field {
    const char* name;
    long long lo;
    long long hi;
};

// `name` or, with an index (1-based), `name_index`: built only for a message.
inline std::string named(const char* name, long long index) {
    return index > 0 ? std::string(name) + "_" + std::to_string(index) : std::string(name);
}

class Reader {
  public:
    Reader() {
        std::string raw;
        char chunk[1 << 16];
        size_t got;
        while ((got = std::fread(chunk, 1, sizeof chunk, stdin)) > 0) raw.append(chunk, got);
        if (raw.empty()) reject("the input is empty");
        buf_.reserve(raw.size() + 1);
        size_t start = 0;
        while (start < raw.size()) {
            size_t stop = raw.find('\n', start);
            if (stop == std::string::npos) stop = raw.size();
            size_t end = stop;
            if (end > start && raw[end - 1] == '\r') --end;
            while (end > start && (raw[end - 1] == ' ' || raw[end - 1] == '\t')) --end;
            buf_.append(raw, start, end - start);
            buf_ += '\n';
            start = stop + 1;
        }
    }

    // The line the next token is on (1-based).
    long long line() const { return line_; }

    // One integer in [lo, hi] at the current position (the caller reads the separators).
    long long integer(const char* name, long long lo, long long hi, long long index = 0) {
        std::string_view tok = token(name, index);
        size_t i = tok[0] == '-' ? 1 : 0;
        bool digits = i < tok.size();
        for (size_t j = i; j < tok.size(); ++j) digits = digits && tok[j] >= '0' && tok[j] <= '9';
        auto what = [&] { return where() + named(name, index); };  // only for a message
        if (!digits) {
            if (tok[0] == '+') reject(what() + " must not start with '+': " + shown(tok));
            reject(what() + " must be an integer, found " + shown(tok));
        }
        if (tok[i] == '0' && tok.size() > i + 1) reject(what() + " has a leading zero: " + shown(tok));
        if (tok == "-0") reject(what() + " is written as '-0'");
        // 20 digits or more is out of every range (|x| <= 10^18 in every statement) and of 64 bits.
        if (tok.size() - i > 19) reject(what() + " = " + shown(tok) + " is out of range " + range(lo, hi));
        unsigned long long magnitude = 0;
        for (size_t j = i; j < tok.size(); ++j) magnitude = magnitude * 10 + static_cast<unsigned>(tok[j] - '0');
        __int128 value = i ? -static_cast<__int128>(magnitude) : static_cast<__int128>(magnitude);
        if (value < lo || value > hi) reject(what() + " = " + std::string(tok) + " is out of range " + range(lo, hi));
        return static_cast<long long>(value);
    }

    // One non-empty token at the current position (the caller checks its characters).
    std::string_view word(const char* name, long long index = 0) { return token(name, index); }

    // Exactly one space, with `next` (the field the caller reads next) after it.
    void space(const char* next, long long index = 0) {
        if (buf_[pos_] == '\n') reject(where() + "the line ends before " + named(next, index));
        if (buf_[pos_] != ' ') reject(where() + "expected a space before " + named(next, index));
        ++pos_;
    }

    // The end of the line, after the field `last`.
    void newline(const char* last, long long index = 0) {
        if (pos_ < buf_.size() && buf_[pos_] == ' ') {
            ++pos_;
            size_t stop = buf_.find_first_of(" \n", pos_);
            reject(where() + "extra token after " + named(last, index) + ": " +
                   shown(std::string_view(buf_).substr(pos_, stop - pos_)));
        }
        if (pos_ >= buf_.size() || buf_[pos_] != '\n') reject(where() + "expected the end of the line");
        ++pos_;
        ++line_;
        line_start_ = pos_;
    }

    // One line holding exactly `fields`, at most four (index > 0: names in messages become
    // name_index). The values come back in the fields' order.
    std::array<long long, 4> line_of(std::initializer_list<Field> fields, long long index = 0) {
        std::array<long long, 4> values{};
        size_t i = 0;
        for (const Field& f : fields) {
            if (i > 0) space(f.name, index);
            values.at(i++) = integer(f.name, f.lo, f.hi, index);
        }
        newline(fields.end()[-1].name, index);
        return values;
    }

    // One line holding exactly `count` integers name_1 ... name_count, each in [lo, hi].
    std::vector<long long> integers_line(const char* name, long long count, long long lo, long long hi) {
        std::vector<long long> values;
        values.reserve(static_cast<size_t>(count));
        for (long long i = 1; i <= count; ++i) {
            if (i > 1) space(name, i);
            values.push_back(integer(name, lo, hi, i));
        }
        newline(name, count);
        return values;
    }

    // One line holding one token (a string the caller checks).
    std::string_view word_line(const char* name, long long index = 0) {
        std::string_view w = word(name, index);
        newline(name, index);
        return w;
    }

    // Nothing after the last expected line.
    void end() {
        if (pos_ < buf_.size()) {
            reject(where() + (buf_[pos_] == '\n' ? "an empty line after the last expected line"
                                                 : "extra line after the last expected line"));
        }
    }

    // A global bound over the input ("the sum of n over all test cases ..."): adds `amount`,
    // read on line `line`, to `total` and rejects once it passes `cap`.
    void add_to_total(long long& total, long long amount, long long cap, const char* what, long long line) {
        total += amount;
        if (total > cap) {
            reject("line " + std::to_string(line) + ": " + what + " reaches " + std::to_string(total) +
                   " here, more than " + std::to_string(cap));
        }
    }

    // "line L: " for a message about the current position.
    std::string where() const { return "line " + std::to_string(line_) + ": "; }

  private:
    static std::string range(long long lo, long long hi) {
        return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    }

    std::string_view token(const char* name, long long index) {
        if (pos_ >= buf_.size()) reject("the input ends before " + named(name, index) + " (line " +
                                        std::to_string(line_) + ")");
        char c = buf_[pos_];
        if (c == '\n') {
            reject(where() + (pos_ == line_start_ ? "empty line, expected " : "the line ends before ") +
                   named(name, index));
        }
        if (c == ' ') {
            reject(where() + "column " + std::to_string(pos_ - line_start_ + 1) +
                   ": a space where " + named(name, index) +
                   " should begin (tokens are separated by one space)");
        }
        size_t start = pos_;
        while (buf_[pos_] != ' ' && buf_[pos_] != '\n') ++pos_;  // buf_ always ends with '\n'
        return std::string_view(buf_).substr(start, pos_ - start);
    }

    std::string buf_;
    size_t pos_ = 0;
    size_t line_start_ = 0;
    long long line_ = 1;
};

}  // namespace zoo
