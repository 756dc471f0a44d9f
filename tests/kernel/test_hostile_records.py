"""Hostile limits and run records (issue 49, items 2 and 3).

- A package whose time limit rounds to 0 ms (``.timelimit`` of ``1e-9``) ended
  ``benchmarks --check`` for the whole contest in a pydantic traceback: it skips only its
  own package now, with one line.
- A run's records are read through the reader of every user file (``tczoo.safeio.userfiles``):
  NaN or Infinity in ``scores.jsonl`` made ``tczoo report`` end in a traceback; an
  ``exchanges.jsonl`` line that is a list, nested too deep or not UTF-8 was skipped by
  ``replay:`` without a word (the run then said "not recorded"); a deep ``grid.json`` or a
  deep last record under ``tczoo run``'s torn-tail repair ended in a RecursionError. Each
  is one line naming ``FILE:LINE`` now, exit 2, and nothing is cut or lost.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tczoo.benchmarks.kattis import scan

ZM04_TESTS = [{"input": "1 1\n1\n", "output": "1\n"}, {"input": "3 7\n10 15 8\n", "output": "4\n"}]
DEEP = b"[" * 100_000 + b"]" * 100_000


def tczoo(*args, env=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "tczoo.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def one_line_error(proc, code: int = 2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines and lines[-1].startswith("error: "), proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    return lines[-1]


# --------------------------------------------------------------------------- limits in packages


ADD_PY = "a, b = map(int, input().split())\nprint(a + b)\n"


def package(root: Path, name: str, *, yaml: str = "name: Add Them\n", timelimit: str | None = "1",
            files: dict[str, str] | None = None) -> Path:
    pdir = root / name
    base = {"problem.yaml": yaml, "problem_statement/problem.en.md": "# Add\n\nPrint $a+b$.\n",
            "data/sample/1.in": "1 2\n", "data/sample/1.ans": "3\n",
            "data/secret/01.in": "3 4\n", "data/secret/01.ans": "7\n",
            "submissions/accepted/add.py": ADD_PY, **(files or {})}
    if timelimit is not None:
        base[".timelimit"] = timelimit + "\n"
    for key, text in base.items():
        (pdir / key).parent.mkdir(parents=True, exist_ok=True)
        (pdir / key).write_text(text)
    return pdir


TINY_LIMITS = {  # name: (problem.yaml, .timelimit, domjudge-problem.ini), each a time limit under 1 ms
    "timelimit": ("name: T\n", "1e-9", None),
    "half-ms": ("name: T\n", "0.0004", None),
    "domjudge": ("name: T\n", None, "timelimit='0.0004'\n"),
    "yaml": ("name: T\nlimits:\n  time_limit: 1.0e-7\n", None, None),
}


def test_a_time_limit_below_a_millisecond_skips_only_its_package(tmp_path):
    contest = tmp_path / "contest"
    package(contest, "good")
    for name, (yaml, timelimit, ini) in TINY_LIMITS.items():
        package(contest, name, yaml=yaml, timelimit=timelimit, files={"domjudge-problem.ini": ini} if ini else None)
    result = scan(contest)
    assert [p.id for p in result.problems] == ["good"]
    reasons = {s.package: s.reason for s in result.skipped}
    assert sorted(reasons) == sorted(TINY_LIMITS)
    for name, reason in reasons.items():
        assert "the time limit must be at least 1 ms" in reason and "\n" not in reason, (name, reason)
    proc = tczoo("benchmarks", "--check", f"kattis:{contest}", "-f", "json", timeout=600)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    reports = {r["package"]: r for r in json.loads(proc.stdout)}
    assert reports["good"]["loaded"] and reports["good"]["mismatches"] == 0
    assert {name for name, r in reports.items() if not r["loaded"]} == set(TINY_LIMITS)
    assert "at least 1 ms" in reports["timelimit"]["reason"] and "'1e-9'" in reports["timelimit"]["reason"]


# --------------------------------------------------------------------------- run records


@pytest.fixture(scope="module")
def crux_run(tmp_path_factory) -> tuple[Path, str, Path]:
    """(a finished CRUX run on zm04, its scripted model, its cache)."""
    root = tmp_path_factory.mktemp("crux")
    rules = root / "rules.jsonl"
    rules.write_text(json.dumps({"match": "test cases", "response": json.dumps(ZM04_TESTS)}) + "\n")
    cache = root / "cache"
    out = root / "run"
    proc = tczoo("run", "-m", "crux", "--model", f"scripted:{rules}", "-p", "zm04", "--out", out,
                 env={"TCZOO_CACHE": str(cache)}, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, f"scripted:{rules}", cache


@pytest.fixture()
def run_dir(crux_run, tmp_path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(crux_run[0], copy, symlinks=True)
    return copy


NOT_NUMBERS = {"NaN": "corrupt record (NaN is not a number JSON allows)",
               "Infinity": "corrupt record (Infinity is not a number JSON allows)",
               "-Infinity": "corrupt record (-Infinity is not a number JSON allows)",
               "1e999": "corrupt record (1e999 overflows to infinity)",
               # strings pydantic would have turned into NaN and Infinity (a score shown as nan, inf)
               '"NaN"': "not a ScoreRecord", '"1e999"': "not a ScoreRecord", '"-inf"': "not a ScoreRecord"}


@pytest.mark.parametrize("value", list(NOT_NUMBERS))
def test_nan_or_infinity_in_a_runs_scores_is_one_line_not_a_traceback(value, run_dir, crux_run):
    scores = run_dir / "scores.jsonl"
    [line] = scores.read_text().splitlines()
    record = json.loads(line)
    metric = next(iter(record["metrics"]))
    hostile = line.replace(f'"{metric}": {json.dumps(record["metrics"][metric])}', f'"{metric}": {value}', 1)
    assert hostile != line
    scores.write_text(hostile + "\n" + line + "\n")  # the hostile record first, then a good one
    env = {"TCZOO_CACHE": str(crux_run[2])}
    for command in (["report", run_dir], ["report", run_dir, "-f", "json"], ["view", run_dir]):
        error = one_line_error(tczoo(*command, env=env))
        assert f"{scores}:1: {NOT_NUMBERS[value]}" in error, error
    scores.write_text(line + "\n" + hostile + "\n")  # as the last record: a whole record, not a torn one
    error = one_line_error(tczoo("report", run_dir, env=env))
    assert f"{scores}:2: {NOT_NUMBERS[value]}" in error, error
    if "ScoreRecord" in error:
        assert "finite number" in error


HOSTILE_EXCHANGES = {
    "a list": (b"[1, 2, 3]", "a list, not an object"),
    "a string": (b'"an exchange"', "a string, not an object"),
    "too deep": (DEEP, "nested deeper than 100 levels"),
    "bad UTF-8": (b'{"ok": true, "text": "\xff\xfe", "sample": 0}', "not UTF-8 (byte 0xff)"),
    "NaN": (b'{"ok": true, "text": "x", "sample": NaN}', "NaN is not a number JSON allows"),
}


@pytest.mark.parametrize("where", ["first", "last"])
@pytest.mark.parametrize("kind", list(HOSTILE_EXCHANGES))
def test_replay_names_a_line_that_is_no_exchange(kind, where, run_dir, crux_run, tmp_path):
    """Before: a list, a line nested too deep or not UTF-8 (the last one) was skipped, and
    the replayed run went on to say its answers were "not recorded"."""
    line, reason = HOSTILE_EXCHANGES[kind]
    exchanges = run_dir / "exchanges.jsonl"
    lines = exchanges.read_bytes().splitlines()
    lines = [line, *lines] if where == "first" else [*lines, line]
    exchanges.write_bytes(b"\n".join(lines) + b"\n")
    lineno = 1 if where == "first" else len(lines)
    out = tmp_path / "again"
    error = one_line_error(tczoo("run", "-m", "crux", "--model", f"replay:{run_dir}", "-p", "zm04", "--out", out,
                                 env={"TCZOO_CACHE": str(crux_run[2])}))
    assert f"{exchanges}:{lineno}: corrupt record ({reason})" in error, error
    assert not (out / "scores.jsonl").exists()  # before any work


def test_a_torn_last_exchange_is_still_skipped_with_a_warning(run_dir):
    """What a killed writer leaves (a record cut short, or cut inside a UTF-8 character)
    is not an attack: the reader skips it and says so; the records before it are read."""
    from tczoo.store import RunStore

    exchanges = run_dir / "exchanges.jsonl"
    whole = exchanges.read_bytes()
    last = whole.rstrip(b"\n").splitlines()[-1]
    for torn in (last[: len(last) // 2], b'{"ok": true, "text": "caf\xc3'):
        exchanges.write_bytes(whole + torn)
        store = RunStore(run_dir)
        assert len(store.exchanges()) == len(whole.splitlines())
        assert store.warnings and "skipped a torn last record" in store.warnings[0]


def test_a_deep_grid_file_and_a_deep_last_record_are_one_line(run_dir, crux_run, tmp_path):
    env = {"TCZOO_CACHE": str(crux_run[2])}
    grid = tmp_path / "compare"
    shutil.copytree(run_dir, grid / "model" / "crux")
    (grid / "grid.json").write_bytes(DEEP)
    error = one_line_error(tczoo("report", grid, env=env))
    assert f"{grid / 'grid.json'}:1: nested deeper than 100 levels" in error
    (grid / "grid.json").unlink()
    os.symlink(run_dir / "config.json", grid / "grid.json")  # a link out of the comparison: never read
    error = one_line_error(tczoo("report", grid, env=env))
    assert "grid.json: a link" in error

    # resuming a run whose last record is nested too deep: named, never cut
    gens = run_dir / "generations.jsonl"
    before = gens.read_bytes() + DEEP + b"\n"
    gens.write_bytes(before)
    error = one_line_error(tczoo("run", "-m", "crux", "--model", crux_run[1], "-p", "zm04", "--out", run_dir,
                                 env=env))
    assert f"{gens}:2: corrupt record (nested deeper than 100 levels)" in error, error
    assert gens.read_bytes() == before
