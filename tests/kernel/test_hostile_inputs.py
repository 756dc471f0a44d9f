"""Hostile inputs (issue 25): problem packages and user files built by an attacker.

Every artifact is made here, for real: links out of a package (to a secret file, to
``/proc/self/environ``, to ``/dev/zero``), link loops, FIFOs, an alias bomb,
out-of-range limits, oversized files, bad UTF-8 and deep nesting. What must hold:
nothing outside a package reaches a prompt, a run directory, a built benchmark or a
log; nothing hangs or blows up; every refusal is one short line (user files: exit 2,
``FILE:LINE``, before any work starts); one bad package never stops the others.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tczoo.benchmarks.kattis import scan
from tczoo.errors import UserError

MARKER = "TCZOO-SECRET-7f3a9c"  # in files outside the package and in the environment
ENV_MARKER = "TCZOO-ENV-SECRET-41d2"

ADD_PY = "a, b = map(int, input().split())\nprint(a + b)\n"
WRONG_PY = "a, b = map(int, input().split())\nprint(a + b + (a == 7))\n"
STATEMENT = "# Add Them\n\nGiven two integers $a$ and $b$ ($0 \\le a, b \\le 100$), print $a+b$.\n"


def tczoo(*args, env=None, timeout=300, cwd=None):
    return subprocess.run([sys.executable, "-m", "tczoo.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})}, cwd=cwd)


def one_line_error(proc, code: int = 2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines and lines[-1].startswith("error: "), proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    return lines[-1]


def package(root: Path, name: str = "addthem", *, yaml: str = "name: Add Them\n", timelimit: str | None = "1",
            files: dict[str, str | bytes] | None = None) -> Path:
    """A small valid package (legacy layout): two samples, three secret tests, one
    accepted and one wrong submission; ``files`` adds or replaces files."""
    pdir = root / name
    base: dict[str, str | bytes] = {
        "problem.yaml": yaml,
        "problem_statement/problem.en.md": STATEMENT,
        "data/sample/1.in": "1 2\n", "data/sample/1.ans": "3\n",
        "data/secret/01.in": "3 4\n", "data/secret/01.ans": "7\n",
        "data/secret/02.in": "7 1\n", "data/secret/02.ans": "8\n",
        "submissions/accepted/add.py": ADD_PY,
        "submissions/wrong_answer/seven.py": WRONG_PY,
    }
    if timelimit is not None:
        base[".timelimit"] = timelimit + "\n"
    base.update(files or {})
    for key, text in base.items():
        path = pdir / key
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return pdir


def link(path: Path, target: str | Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)


def skipped(result, name: str) -> str:
    return {s.package.rsplit("/", 1)[-1]: s.reason for s in result.skipped}[name]


def everything_under(root: Path) -> bytes:
    """The bytes of every regular file below ``root`` (links are not followed)."""
    out = []
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = Path(dirpath) / f
            if p.is_file() and not p.is_symlink():
                out.append(p.read_bytes())
    return b"\n".join(out)


# --------------------------------------------------------------------------- a package reads only itself


@pytest.fixture(scope="module")
def leaky(tmp_path_factory) -> Path:
    """A contest with one package that reaches out of itself every way it can."""
    root = tmp_path_factory.mktemp("leaky")
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"1 {MARKER}\n")
    (outside / "secret.py").write_text(f"print('{MARKER}')\n")
    (outside / "dir").mkdir()
    (outside / "dir" / "x.in").write_text(MARKER)
    (outside / "dir" / "x.ans").write_text(MARKER)
    contest = root / "contest"
    pdir = package(contest, "leaky")
    link(pdir / "data" / "sample" / "2.in", "../../../../outside/secret.txt")  # relative, out of the contest
    (pdir / "data" / "sample" / "2.ans").write_text("3\n")
    link(pdir / "data" / "secret" / "03.in", "/proc/self/environ")  # the reader's own environment
    (pdir / "data" / "secret" / "03.ans").write_text("0\n")
    link(pdir / "data" / "secret" / "04.in", str(outside / "secret.txt"))  # absolute
    link(pdir / "data" / "secret" / "04.ans", str(outside / "secret.txt"))
    link(pdir / "data" / "secret" / "g", str(outside / "dir"))  # a whole group
    link(pdir / "submissions" / "accepted" / "leak.py", str(outside / "secret.py"))
    link(pdir / "submissions" / "wrong_answer" / "dirleak", str(outside))
    link(pdir / "input_validators" / "v.py", str(outside / "secret.py"))
    return contest


def test_links_out_of_a_package_are_refused_and_never_read(leaky, monkeypatch):
    monkeypatch.setenv("TCZOO_TEST_SECRET", ENV_MARKER)
    result = scan(leaky)
    [problem] = result.problems
    dump = problem.model_dump_json()
    assert MARKER not in dump and ENV_MARKER not in dump
    kattis = problem.meta["kattis"]
    assert [t.name for t in problem.golden_tests] == ["secret/01", "secret/02"]
    assert [s.input for s in problem.samples] == ["1 2\n"]
    reasons = " | ".join(kattis["skipped_tests"])
    assert "sample/2: leaky/data/sample/2.in: a link that leaves leaky: not read" in reasons
    assert "secret/03: leaky/data/secret/03.in: a link that leaves" in reasons
    assert "secret/04: " in reasons and "secret/g: leaky/data/secret/g: a link that leaves" in reasons
    assert [s.name for s in problem.solutions] == ["accepted/add.py"]
    subs = {s["path"]: s["reason"] for s in kattis["skipped_submissions"]}
    assert "a link that leaves" in subs["accepted/leak.py"] and "a link that leaves" in subs["wrong_answer/dirleak"]
    assert problem.input_validators == [] and "a link that leaves" in str(kattis["skipped_validators"])
    assert all(len(r) < 300 and "\n" not in r for r in kattis["skipped_tests"])


def test_the_secret_reaches_no_prompt_run_file_log_or_built_benchmark(leaky, tmp_path):
    """A whole run (the prompts are recorded in exchanges.jsonl), a check and a built
    benchmark from the leaky package; the secret file and the environment variable
    the package links to must appear in none of them, nor in what tczoo printed."""
    rules = tmp_path / "echo.jsonl"
    rules.write_text(json.dumps({"match": "", "response": json.dumps([{"input": "1 2\n", "output": "3\n"}])}) + "\n")
    env = {"TCZOO_TEST_SECRET": ENV_MARKER}
    pdir = leaky / "leaky"
    out = tmp_path / "run"
    run = tczoo("run", "-m", "crux", "--model", f"scripted:{rules}", "--benchmark", f"kattis:{pdir}",
                "--out", out, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    exchanges = (out / "exchanges.jsonl").read_text()
    assert "Add Them" in exchanges  # the prompt was recorded ...
    built = tmp_path / "built.jsonl"
    build = tczoo("build-benchmark", "--benchmark", f"kattis:{pdir}", "--out", built, "--restarts", "2", env=env)
    assert build.returncode == 0, build.stderr[-3000:]
    check = tczoo("benchmarks", "--check", f"kattis:{leaky}", "-f", "json", env=env)
    assert check.returncode == 0, check.stderr[-3000:]
    produced = b"\n".join([everything_under(out), built.read_bytes()])
    printed = "".join(p.stdout + p.stderr for p in (run, build, check))
    for secret in (MARKER, ENV_MARKER):  # ... and the secret is in none of it
        assert secret.encode() not in produced
        assert secret not in printed


def test_link_loops_and_runaway_trees_end(tmp_path, monkeypatch):
    contest = tmp_path / "contest"
    pdir = package(contest, "loops")
    link(pdir / "data" / "secret" / "self", ".")
    link(pdir / "data" / "secret" / "up", "..")
    link(pdir / "data" / "secret" / "g" / "back", "../..")
    (pdir / "data" / "secret" / "g" / "05.in").write_text("5 5\n")
    (pdir / "data" / "secret" / "g" / "05.ans").write_text("10\n")
    link(pdir / "data" / "secret" / "a.in", "b.in")  # a two-link cycle
    link(pdir / "data" / "secret" / "b.in", "a.in")
    (pdir / "data" / "secret" / "a.ans").write_text("0\n")
    link(pdir / "submissions" / "accepted" / "loopdir", ".")
    link(contest / "again", ".")  # the contest folder links to itself
    link(contest / "nested" / "deeper", "../..")
    [problem] = scan(contest).problems  # ends, and finds the package once
    assert [t.name for t in problem.golden_tests] == ["secret/01", "secret/02", "secret/g/05"]
    reasons = " | ".join(problem.meta["kattis"]["skipped_tests"])
    assert "a link back to a folder above it (a loop)" in reasons and "a link loop" in reasons
    # a tree that is merely huge stops at its caps
    monkeypatch.setenv("TCZOO_READ_ENTRIES", "40")
    wide = package(tmp_path / "wide", "wide", files={f"data/secret/{i:03}.in": "1 1\n" for i in range(60)})
    result = scan(wide)
    assert not result.problems and "over 40 files and folders" in skipped(result, "wide")


def test_fifos_devices_and_oversized_files_are_refused_without_waiting(tmp_path):
    """Run in a child with a deadline: a reader that opened the FIFO would wait forever."""
    contest = tmp_path / "contest"
    fifo_limit = package(contest, "fifolimit")
    (fifo_limit / ".timelimit").unlink()
    os.mkfifo(fifo_limit / ".timelimit")
    zero = package(contest, "zeroyaml", yaml="")
    (zero / "problem.yaml").unlink()
    link(zero / "problem.yaml", "/dev/zero")
    tests = package(contest, "fifotests")
    os.mkfifo(tests / "data" / "secret" / "09.in")
    (tests / "data" / "secret" / "09.ans").write_text("0\n")
    link(tests / "data" / "secret" / "10.in", "/dev/zero")
    (tests / "data" / "secret" / "10.ans").write_text("0\n")
    big = package(contest, "bigtest", files={"data/secret/11.in": "1 " * (600 << 10), "data/secret/11.ans": "1\n"})
    assert big.is_dir()
    script = textwrap.dedent(f"""
        import json
        from tczoo.benchmarks.kattis import scan
        r = scan({str(contest)!r})
        print(json.dumps({{"loaded": {{p.id: p.meta["kattis"].get("skipped_tests", []) for p in r.problems}},
                          "skipped": {{s.package: s.reason for s in r.skipped}}}}))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TCZOO_READ_FILE_MB": "1"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout)
    assert "FIFO" in got["skipped"]["fifolimit"] and "malformed package" in got["skipped"]["fifolimit"]
    assert "leaves" in got["skipped"]["zeroyaml"]  # /dev/zero is outside the package
    fifo_reasons = " | ".join(got["loaded"]["fifotests"])
    assert "secret/09" in fifo_reasons and "FIFO" in fifo_reasons and "secret/10" in fifo_reasons
    assert "over the 1 MiB" in " | ".join(got["loaded"]["bigtest"])


def test_a_package_over_its_byte_budget_is_skipped(tmp_path, monkeypatch):
    monkeypatch.setenv("TCZOO_READ_TREE_MB", "1")
    contest = tmp_path / "contest"
    package(contest, "small")
    package(contest, "huge", files={f"data/secret/{i}.in": "9 " * (200 << 10) for i in range(4)}
            | {f"data/secret/{i}.ans": "1\n" for i in range(4)})
    result = scan(contest)
    assert [p.id for p in result.problems] == ["small"]  # the budget is per package
    assert skipped(result, "huge").startswith("too large: ") and "TCZOO_READ_TREE_MB" in skipped(result, "huge")


# --------------------------------------------------------------------------- problem.yaml is data, bounded


ALIAS_BOMB = "name: Bomb\n" + "".join(
    f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9) if i else 'lol'}]\n" for i in range(12))

BAD_LIMITS = {
    "aliasbomb": (ALIAS_BOMB, "1", "aliases (*l0) are not allowed"),
    "deepyaml": ("name: D\nx: " + "[" * 500 + "]" * 500 + "\n", "1", "nested deeper than"),
    "badutf8": (b"name: \xff\xfe\n", "1", "not UTF-8"),
    "inftime": ("name: I\n", "inf", "above 0 and at most 3600 seconds"),
    "nantime": ("name: N\n", "nan", "positive number"),
    "hugetime": ("name: H\n", "1e400", "above 0 and at most 3600 seconds"),
    "longtime": ("name: L\n", "99999", "at most 3600 seconds"),
    "zerotime": ("name: Z\n", "0", "positive number"),
    "yamltime": ("name: Y\nlimits:\n  time_limit: .inf\n", None, "finite number"),
    "memory": ("name: M\nlimits:\n  memory: 1e12\n", "1", "limits.memory must be at most 65536"),
    "negmemory": ("name: M\nlimits:\n  memory: -4\n", "1", "limits.memory must be positive"),
    "valtime": ("name: V\nlimits:\n  validation_time: -1\n", "1", "limits.validation_time must be positive"),
    "multiplier": ("name: X\nlimits:\n  time_multiplier: 1000\n", None, "limits.time_multiplier must be at most 20"),
    "listmemory": ("name: L\nlimits:\n  memory: [" + ", ".join(["1"] * 5000) + "]\n", "1", "must be a number"),
}


def test_an_alias_bomb_and_out_of_range_limits_skip_only_their_package(tmp_path):
    contest = tmp_path / "contest"
    package(contest, "good")
    for name, (yaml, timelimit, _) in BAD_LIMITS.items():
        pdir = package(contest, name, yaml="", timelimit=timelimit)
        (pdir / "problem.yaml").write_bytes(yaml if isinstance(yaml, bytes) else yaml.encode())
    result = scan(contest)
    assert [p.id for p in result.problems] == ["good"]
    for name, (_, _, needle) in BAD_LIMITS.items():
        reason = skipped(result, name)
        assert needle in reason, (name, reason)
        assert len(reason) < 250 and "\n" not in reason, (name, reason)  # never an unbounded structure


def test_check_goes_on_over_the_rest_of_a_contest(tmp_path):
    contest = tmp_path / "contest"
    package(contest, "good")
    for name in ("aliasbomb", "longtime", "listmemory"):
        yaml, timelimit, _ = BAD_LIMITS[name]
        package(contest, name, yaml=yaml, timelimit=timelimit)
    os.mkfifo(package(contest, "fifo") / "problem_statement" / "problem.en.tex")
    proc = tczoo("benchmarks", "--check", f"kattis:{contest}", "-f", "json", timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    reports = {r["package"]: r for r in json.loads(proc.stdout)}
    assert reports["good"]["loaded"] and reports["good"]["mismatches"] == 0
    assert len(reports["good"]["submissions"]) == 2
    assert {name for name, r in reports.items() if not r["loaded"]} == {"aliasbomb", "longtime", "listmemory", "fifo"}
    assert "FIFO" in reports["fifo"]["reason"]


# --------------------------------------------------------------------------- every user file


def _deep(n: int = 100_000) -> str:
    return "[" * n + "]" * n


# line 1 is a record every reader takes (a scripted rule, a test, a candidate); line 2 is hostile
FIRST = json.dumps({"match": "", "response": "x", "problem_id": "p", "input": "1\n", "code": "print(1)"}).encode()
HOSTILE_JSONL = {
    "bad UTF-8": (FIRST + b'\n{"a": "\xff\xfe"}\n', ":2: not UTF-8"),
    "deep nesting": (FIRST + b"\n" + _deep().encode() + b"\n", ":2: nested deeper than"),
    "NaN": (FIRST + b'\n{"a": NaN}\n', ":2: NaN is not a number JSON allows"),
    "Infinity": (FIRST + b'\n{"a": -Infinity}\n', ":2: -Infinity is not a number JSON allows"),
    "overflow": (FIRST + b'\n{"a": 1e999}\n', ":2: 1e999 overflows to infinity"),
    "huge line": (FIRST + b'\n{"a": "' + b"x" * (1 << 20) + b'"}\n', ":2: a line over 1 MiB"),
    "wrong type": (FIRST + b'\n["a", "list", "of", "words"]\n', ":2: "),
}


def _readers(tmp_path: Path):
    """Each user-file reader, as a function of a path that raises on a bad file."""
    from tczoo.benchmarks.loaders import load_benchmark_spec
    from tczoo.cli.runs import _check_tests_file
    from tczoo.llm.backends import ReplayBackend, ScriptedBackend
    from tczoo.runners.bestofn import BestOfNRunner
    from tczoo.store import RunStore

    def replay(path: Path) -> None:
        run = tmp_path / f"replay-{path.name}"
        run.mkdir()
        (run / "config.json").write_text("{}")
        os.link(path, run / "exchanges.jsonl")  # a hard link: the same regular file
        ReplayBackend(str(run))

    def candidates(path: Path) -> None:
        BestOfNRunner(None, candidates=str(path))._read_file()

    def records(path: Path) -> None:
        run = tmp_path / f"records-{path.name}"
        run.mkdir()
        os.link(path, run / "exchanges.jsonl")
        (run / "config.json").write_text("{}")
        RunStore(run).exchanges()

    return {
        "SCHEMA:PATH": lambda p: load_benchmark_spec(f"tcbench:{p}"),
        "scripted:": lambda p: ScriptedBackend(str(p)),
        "replay:": replay,
        "--tests": _check_tests_file,
        "candidates": candidates,
        "run records": records,
    }


@pytest.mark.parametrize("content", list(HOSTILE_JSONL), ids=list(HOSTILE_JSONL))
def test_every_jsonl_reader_refuses_hostile_lines_with_file_and_line(content, tmp_path, monkeypatch):
    monkeypatch.setenv("TCZOO_READ_FILE_MB", "1")
    monkeypatch.setenv("TCZOO_READ_RECORD_MB", "1")
    data, needle = HOSTILE_JSONL[content]
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(data + FIRST + b"\n")  # not the last line: no reader may take it for a torn record
    for name, read in _readers(tmp_path).items():
        with pytest.raises(UserError) as info:
            read(path)
        message = str(info.value)
        assert "\n" not in message and len(message) < 400, (name, message[:500])
        if name in ("replay:", "run records"):
            # run records are read as every user file is (issue 49), and each is an object
            want = {"bad UTF-8": ":2: corrupt record (not UTF-8 (byte 0xff))",
                    "deep nesting": ":2: corrupt record (nested deeper than 100 levels)",
                    "NaN": ":2: corrupt record (NaN is not a number JSON allows)",
                    "Infinity": ":2: corrupt record (-Infinity is not a number JSON allows)",
                    "overflow": ":2: corrupt record (1e999 overflows to infinity)",
                    "huge line": ":2: a line over 1 MiB",
                    "wrong type": ":2: corrupt record (a list, not an object)"}[content]
            assert want in message, (name, message)
        elif content == "wrong type" and name == "SCHEMA:PATH":  # line 1 is no TC-Bench record either
            assert re.search(rf"{re.escape(str(path))}:[12]: record \d: not a tcbench record", message), message
        else:
            assert f"{path}{needle}" in message, (name, message)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory"])
def test_user_files_that_are_not_regular_files_are_refused_at_once(kind, tmp_path):
    path = tmp_path / "input.jsonl"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        os.symlink("/dev/zero", path)
    else:
        path.mkdir()
    for name, read in _readers(tmp_path).items():
        if name in ("replay:", "run records"):
            continue  # run directories: tests/test_hostile_rundirs.py
        with pytest.raises(UserError) as info:
            read(path)
        assert "\n" not in str(info.value), name


def test_json_documents_params_and_matrices(tmp_path):
    from tczoo.benchmarks.wrongselect import MatrixError, load_matrix_file
    from tczoo.cli.kit import CLIError, parse_json_option

    matrix = tmp_path / "m.json"
    for data, needle in ((b'["AW",\n "WA",\n "\xff"]', "m.json:3: not UTF-8"),
                         (_deep().encode(), "m.json:1: nested deeper than"),
                         (b'[[0, 1],\n [NaN, 1]]', "m.json:1: NaN is not a number"),
                         (b'[[0, 1], [' + b", ".join([b"7"] * 5000) + b"]]", "entries must be 0/1 or verdicts")):
        matrix.write_bytes(data)
        with pytest.raises(MatrixError) as info:
            load_matrix_file(matrix)
        assert needle in str(info.value) and len(str(info.value)) < 300
    for text, needle in (('{"crux": {"x": NaN}}', "NaN is not a number"), (_deep(), "nested deeper than"),
                         ('{"crux": {"x": 1e999}}', "overflows to infinity"), ("{oops", "--params is not valid JSON")):
        with pytest.raises(CLIError, match=needle):
            parse_json_option(text, "--params")


def test_bad_user_files_on_the_command_line_are_exit_2_before_any_work(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps({"match": "", "response": "[]"}) + "\n")
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"match": "", "response": "[]"}\n{"match": "\xff"}\n')
    out = tmp_path / "run"
    line = one_line_error(tczoo("run", "-m", "crux", "--model", f"scripted:{bad}", "-p", "zm04", "--out", out))
    assert f"{bad}:2: not UTF-8" in line and not out.exists()
    deep = tmp_path / "deep.jsonl"
    deep.write_text(_deep() + "\n")
    line = one_line_error(tczoo("run", "-m", "crux", "--model", f"scripted:{good}", "--benchmark", f"tcbench:{deep}",
                                "--out", out))
    assert f"{deep}:1: nested deeper than" in line and not (out / "generations.jsonl").exists()
    line = one_line_error(tczoo("score", "--benchmark", "zoo-mini", "--tests", deep))
    assert f"{deep}:1: nested deeper than" in line
    line = one_line_error(tczoo("run", "-m", "crux", "--model", f"scripted:{good}", "-p", "zm04", "--out", out,
                                "--params", '{"crux": {"max_rounds": Infinity}}'))
    assert "Infinity is not a number JSON allows" in line and not (out / "generations.jsonl").exists()
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    line = one_line_error(tczoo("wrongselect", fifo), 2)
    assert "not a regular file" in line


def test_out_of_range_limits_in_a_benchmark_file_name_their_line(tmp_path):
    from tczoo.benchmarks.loaders import BenchmarkLoadError, load_benchmark_spec

    good = (Path(__file__).parent.parent / "fixtures" / "loaders" / "tcbench.jsonl").read_text().splitlines()
    for field, value, needle in (("time_limit", 0, "time_limit_ms: Input should be greater than 0"),
                                 ("time_limit", 10 ** 12, "time_limit_ms: Input should be less than or equal"),
                                 ("memory_limit", -256, "memory_limit_mb: Input should be greater than 0")):
        bad = json.loads(good[1])
        bad[field] = value
        path = tmp_path / f"{field}.jsonl"
        path.write_text("\n".join([good[0], "", json.dumps(bad)]) + "\n")
        with pytest.raises(BenchmarkLoadError) as info:
            load_benchmark_spec(f"tcbench:{path}")
        message = str(info.value)
        assert message.startswith(f"{path}:3: record 1 ") and needle in message and "\n" not in message


def test_a_scenario_catalog_of_ones_own_is_read_bounded(tmp_path):
    from tczoo.methods.stab.scenarios import load_catalog
    from tczoo.safeio.userfiles import UserFileError

    path = tmp_path / "catalog.yaml"
    for data, needle in ((ALIAS_BOMB.encode(), "catalog.yaml:3: aliases (*l0) are not allowed"),
                         (b"scenarios:\n  - name: \xff\n", "catalog.yaml:2: not UTF-8"),
                         (b"x: " + b"[" * 500 + b"]" * 500, "catalog.yaml:1: nested deeper than")):
        path.write_bytes(data)
        with pytest.raises(UserFileError) as info:
            load_catalog(path)
        assert needle in str(info.value)


def test_a_model_answer_nested_thousands_deep_is_a_parse_failure_not_a_crash():
    from tczoo.parsing.text import ParseError, parse_json

    for answer in (_deep(), "```json\n" + "[" * 100_000 + "\n```", "{" + '"a": {' * 50_000):
        with pytest.raises(ParseError, match="nested too deeply|bad_json"):
            parse_json(answer)
