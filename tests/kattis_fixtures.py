"""Small Kattis/ICPC problem packages written by tests (never the real packages): the
legacy layout with a statement, secret groups, every submission folder and a
checktestdata input validator."""

from __future__ import annotations

from pathlib import Path

STATEMENT = r"""\problemname{Add Them}
\newcommand{\maxv}{10^{9}}
\newcommand{\pair}[2]{(#1, #2)}
% a comment that must not show up
\illustration{0.3}{adder}{An adder. Picture by \emph{someone}}
Given two integers, print their sum.\footnote{Really.}

\begin{Input}
  The input consists of:
  \begin{itemize}
    \item One line with two integers $a$ and $b$ ($0 \le a, b \le \maxv$), the pair~$\pair{a}{b}$.
  \end{itemize}
\end{Input}

\begin{Output}
  Output \texttt{a+b}, or \texttt{impossible}.
\end{Output}
"""

ADD_PY = "a, b = map(int, input().split())\nprint(a + b)\n"
ADD_CPP = "#include <cstdio>\nint main(){long long a,b;scanf(\"%lld %lld\",&a,&b);printf(\"%lld\\n\",a+b);}\n"
WRONG_PY = "a, b = map(int, input().split())\nprint(a + b + (a == 7))\n"
SLOW_PY = "import time\na, b = map(int, input().split())\nif a == 7:\n    x = 0\n    while True: x += 1\nprint(a + b)\n"
CRASH_PY = "a, b = map(int, input().split())\nassert a != 7\nprint(a + b)\n"

CTD = "INT(0, 1000000000, a) SPACE INT(0, 1000000000, b) NEWLINE\nEOF\n"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def make_package(root: Path, name: str = "addthem", *, yaml: str | None = None, timelimit: str | None = "1",
                 tests: dict[str, tuple[str, str | None]] | None = None,
                 submissions: dict[str, str] | None = None, files: dict[str, str] | None = None) -> Path:
    """A package in the legacy layout; ``tests`` maps "sample/1" / "secret/g1/01" to (in, ans)."""
    pdir = root / name
    write(pdir / "problem.yaml", yaml if yaml is not None else
          "name: Add Them\nauthor: Test Author\nsource: Test Contest\nlicense: cc by-sa\nrights_owner: author\n"
          "limits:\n  memory: 512\n")
    if timelimit is not None:
        write(pdir / ".timelimit", timelimit + "\n")
    write(pdir / "problem_statement" / "problem.en.tex", STATEMENT)
    write(pdir / "problem_statement" / "adder.jpg", "not really a jpeg")
    tests = tests if tests is not None else {
        "sample/1": ("1 2\n", "3\n"),
        "secret/01-small": ("3 4\n", "7\n"),
        "secret/g2/02-seven": ("7 1\n", "8\n"),
        "secret/g2/sub/01-deep": ("5 5\n", "10\n"),
        "secret/10-big": ("1000000000 1000000000\n", "2000000000\n"),
    }
    for key, (inp, ans) in tests.items():
        write(pdir / "data" / f"{key}.in", inp)
        if ans is not None:
            write(pdir / "data" / f"{key}.ans", ans)
    submissions = submissions if submissions is not None else {
        "accepted/add.py": ADD_PY, "accepted/add.cpp": ADD_CPP,
        "wrong_answer/off_by_seven.py": WRONG_PY,
        "time_limit_exceeded/loops_on_seven.py": SLOW_PY,
        "run_time_error/asserts.py": CRASH_PY,
    }
    for key, code in submissions.items():
        write(pdir / "submissions" / key, code)
    write(pdir / "input_validators" / "validate.ctd", CTD)
    for key, text in (files or {}).items():
        write(pdir / key, text)
    return pdir
