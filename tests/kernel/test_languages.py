"""The contest languages (issue 48): Kotlin, Haskell, Rust, Go, PyPy and Python 2 beside
C, C++, Java and Python, each through the real compilers and the real sandbox: verdicts,
the judges' run lines, programs under their own file names, programs of several files,
and a language that is not installed (a program that cannot run, never a verdict).
A language whose compiler is missing here skips its tests, saying so (the lean install)."""

from __future__ import annotations

import pytest

from tczoo.sandbox import Limits, Verdict
from tczoo.sandbox.languages import installed, kotlin_main_class, missing_message, report
from tczoo.schema import Language, Program

LIMITS = Limits(time_ms=2000, memory_mb=512)


def needs(language: Language):
    return pytest.mark.skipif(not installed(language), reason=missing_message(language))


# Each language: a sum, a wrong sum, a crash, an endless loop, a compile error.
PROGRAMS = {
    Language.KOTLIN: {
        "ok": "fun main() {\n    val (a, b) = readLine()!!.trim().split(\" \").map { it.toLong() }\n    println(a + b)\n}\n",
        "wrong": "fun main() {\n    val (a, b) = readLine()!!.trim().split(\" \").map { it.toLong() }\n    println(a - b)\n}\n",
        "crash": "fun main() {\n    throw IllegalStateException(\"boom\")\n}\n",
        "loop": "fun main() {\n    var x = 0L\n    while (true) { x += 1 }\n}\n",
        "ce": "fun main() {\n    val x: Int = \"not a number\"\n}\n",
    },
    Language.HASKELL: {
        "ok": "main :: IO ()\nmain = do\n  [a, b] <- fmap (map read . words) getLine :: IO [Integer]\n  print (a + b)\n",
        "wrong": "main :: IO ()\nmain = do\n  [a, b] <- fmap (map read . words) getLine :: IO [Integer]\n  print (a - b)\n",
        "crash": "main :: IO ()\nmain = error \"boom\"\n",
        # a strict loop in constant space (the lazy `length [1 :: Integer ..]` retained its
        # list: MLE at 514 MB in 1.8 s, a race with the time limit, not a TLE)
        "loop": "{-# LANGUAGE BangPatterns #-}\nmain :: IO ()\nmain = print (go 1 0)\n  where\n"
                "    go :: Int -> Int -> Int\n"
                "    go !x !i = if x == 0 then i else go (x * 6364136223846793005 + 1) (i + 1)\n",
        "ce": "main :: IO ()\nmain = putStrLn (1 + True)\n",
    },
    Language.RUST: {
        "ok": "use std::io::*;\nfn main() { let mut s = String::new(); stdin().read_line(&mut s).unwrap();\n"
              "  let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();\n"
              "  println!(\"{}\", v[0] + v[1]); }\n",
        "wrong": "use std::io::*;\nfn main() { let mut s = String::new(); stdin().read_line(&mut s).unwrap();\n"
                 "  let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();\n"
                 "  println!(\"{}\", v[0] - v[1]); }\n",
        "crash": "fn main() { let v: Vec<i32> = Vec::new(); println!(\"{}\", v[3]); }\n",
        "loop": "fn main() { let mut x: u64 = 1; loop { x = x.wrapping_mul(6364136223846793005).wrapping_add(1);\n"
                "  if x == 0 { break; } } println!(\"{}\", x); }\n",
        "ce": "fn main() { let x: i32 = \"no\"; }\n",
    },
    Language.GO: {
        "ok": "package main\nimport \"fmt\"\nfunc main() { var a, b int64; fmt.Scan(&a, &b); fmt.Println(a + b) }\n",
        "wrong": "package main\nimport \"fmt\"\nfunc main() { var a, b int64; fmt.Scan(&a, &b); fmt.Println(a - b) }\n",
        "crash": "package main\nfunc main() { var m map[string]int; m[\"x\"] = 1 }\n",
        "loop": "package main\nfunc main() { x := 0; for { x++ } }\n",
        "ce": "package main\nfunc main() { var x int = \"no\" }\n",
    },
    Language.PYPY: {
        "ok": "a, b = map(int, input().split())\nprint(a + b)\n",
        "wrong": "a, b = map(int, input().split())\nprint(a - b)\n",
        "crash": "raise SystemExit(3)\n",
        "loop": "x = 0\nwhile True:\n    x += 1\n",
        "ce": None,  # (no compile step: a syntax error is a crash, as under CPython)
    },
}


@pytest.mark.parametrize("language", list(PROGRAMS), ids=lambda lang: lang.value)
def test_each_language_gets_the_verdicts_a_judge_gives(sandbox, language):
    if not installed(language):
        pytest.skip(missing_message(language))
    src = PROGRAMS[language]
    expect = {"ok": Verdict.AC, "wrong": Verdict.WA, "crash": Verdict.RE, "loop": Verdict.TLE, "ce": Verdict.CE}
    for kind, code in src.items():
        if code is None:
            continue
        r = sandbox.judge(Program(code=code, language=language, name=kind), "20 22\n", "42\n", LIMITS)
        assert r.verdict is expect[kind], (kind, r.verdict, r.message[:500], r.stderr[-500:])
        if kind == "ok":
            assert r.cpu_ms > 0 and r.stdout == "42\n"
        if kind == "ce":
            assert r.message  # the compiler's own words


@needs(Language.HASKELL)
def test_haskell_runs_with_the_judges_runtime_options(sandbox):
    """+RTS -M{memory}m -K8m -RTS (problemtools): the heap stops at the memory limit, the
    program's own arguments come after; a deep recursion overflows the 8 MB stack."""
    show_args = "import System.Environment\nmain :: IO ()\nmain = getArgs >>= print\n"
    r = sandbox.run(Program(code=show_args, language=Language.HASKELL), "", LIMITS, args=["x"])
    assert r.verdict is Verdict.AC and r.stdout.strip() == '["x"]', r
    deep = "f :: Integer -> Integer\nf 0 = 0\nf n = 1 + f (n - 1)\nmain :: IO ()\nmain = print (f 100000000)\n"
    r = sandbox.run(Program(code=deep, language=Language.HASKELL), "", Limits(time_ms=5000, memory_mb=512))
    assert r.verdict in (Verdict.RE, Verdict.MLE), r  # stack overflow (8 MB) or heap at the limit


def test_a_program_runs_under_its_own_file_name(sandbox):
    """The judge runs ``python3 paul.py``: a program that reads its own name (sys.argv[0],
    __file__) finds it; tczoo's own programs keep /dev/fd/3."""
    code = "import os, sys\nprint(os.path.basename(sys.argv[0]), os.path.basename(__file__))\n"
    named = sandbox.run(Program(code=code, language=Language.PYTHON, file="paul-42.py"), "", LIMITS)
    assert named.verdict is Verdict.AC and named.stdout.split() == ["paul-42.py", "paul-42.py"], named
    plain = sandbox.run(Program(code=code, language=Language.PYTHON), "", LIMITS)
    assert plain.verdict is Verdict.AC and plain.stdout.split()[0] == "3", plain  # /dev/fd/3


def test_java_takes_its_class_from_the_file_name(sandbox):
    code = "public class Paul { public static void main(String[] a) { System.out.println(\"hi\"); } }\n"
    assert sandbox.run(Program(code=code, language=Language.JAVA, file="Paul.java"), "", LIMITS).stdout == "hi\n"
    # a file named otherwise cannot hold that public class: javac's own error, a CE
    wrong = sandbox.run(Program(code=code, language=Language.JAVA, file="Other.java"), "", LIMITS)
    assert wrong.verdict is Verdict.CE and "Paul" in wrong.message


def test_kotlin_facade_class_names():
    assert kotlin_main_class("solve.kt") == "SolveKt"
    assert kotlin_main_class("paul-dfs.kt") == "Paul_dfsKt"
    assert kotlin_main_class("kunyavskiy.kt") == "KunyavskiyKt"


@needs(Language.KOTLIN)
def test_kotlin_runs_its_main_files_class(sandbox):
    code = ("fun main() {\n    val k = Class.forName(\"Paul_dfsKt\")\n"
            "    println(k.simpleName)\n}\n")
    r = sandbox.run(Program(code=code, language=Language.KOTLIN, file="paul-dfs.kt"), "", LIMITS)
    assert r.verdict is Verdict.AC and r.stdout.strip() == "Paul_dfsKt", (r.message[:500], r.stderr[-500:])


def test_programs_of_several_files(sandbox):
    """A folder under submissions/: its main file plus modules, classes or units."""
    py = Program(code="import helper\nprint(helper.twice(int(input())))\n", language=Language.PYTHON,
                 file="main.py", files={"helper.py": "def twice(x):\n    return 2 * x\n"})
    assert sandbox.run(py, "21\n", LIMITS).stdout == "42\n"
    cpp = Program(code='#include <cstdio>\n#include "twice.h"\nint main(){int x; scanf("%d",&x); printf("%d\\n", twice(x));}\n',
                  language=Language.CPP, file="main.cpp",
                  files={"twice.h": "int twice(int);\n", "twice.cpp": '#include "twice.h"\nint twice(int x){return 2*x;}\n'})
    assert sandbox.run(cpp, "21\n", LIMITS).stdout == "42\n"
    java = Program(code="public class Main { public static void main(String[] a) { System.out.println(Twice.of(21)); } }\n",
                   language=Language.JAVA, file="Main.java",
                   files={"Twice.java": "public class Twice { static int of(int x) { return 2 * x; } }\n"})
    assert sandbox.run(java, "", LIMITS).stdout == "42\n"
    # a name no judge takes is the program's own compile error, never a path out of the build folder
    bad = Program(code="print(1)\n", language=Language.CPP, file="main.cpp", files={"../escape.h": "x"})
    assert sandbox.run(bad, "", LIMITS).verdict is Verdict.CE


def test_a_language_that_is_not_installed_cannot_run(sandbox, monkeypatch):
    """No compiler or interpreter: CompileResult.missing, the run SE (the sandbox cannot
    run it), and the judge of a suite says "cannot run here: ... not installed"."""
    from tczoo.execution.judge import compile_status
    from tczoo.sandbox import compile as compile_module
    from tczoo.sandbox import languages

    monkeypatch.setattr(languages, "tool", lambda language: None)
    for language in (Language.KOTLIN, Language.PYPY, Language.PYTHON2):
        program = Program(code="print(1)\n", language=language)
        built = sandbox.compile(program)
        assert not built.ok and built.missing and built.infrastructure and "not installed" in built.message
        assert sandbox.run(program, "", LIMITS).verdict is Verdict.SE
        status, message = compile_status(sandbox, program, functional=False)
        assert status == "missing" and "not installed" in message
    # nothing of it was cached: installing the compiler later makes it run
    monkeypatch.undo()
    languages.version.cache_clear()
    compile_module.compiler_version.cache_clear()
    assert sandbox.compiler.known(Program(code="print(1)\n", language=Language.PYTHON2)) is None


def test_doctor_lists_every_language():
    languages = report()
    assert set(languages) == {"C", "C++", "Java", "Kotlin", "Haskell", "Rust", "Go", "PyPy", "Python 2"}
    for name, state in languages.items():
        assert state and ("missing" in state or any(ch.isdigit() for ch in state)), (name, state)
