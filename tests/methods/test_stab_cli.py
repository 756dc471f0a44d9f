"""``tczoo stab ...`` through the real entry point (``python -m tczoo.cli``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

STATEMENT = r"""Grid Walk

## Input

The first line contains two integers $n$ and $m$ ($1 \le n, m$, $n \cdot m \le 10^6$).
The second line contains $n$ integers $a_1, a_2, \ldots, a_n$ ($1 \le a_i \le 10^9$).

## Output

Print one integer.

## Examples

Input
```
2 3
1 2
```
"""


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tczoo.cli", "stab", *args], capture_output=True, text=True,
                          timeout=120)


def test_stab_boundary_json(tmp_path):
    path = tmp_path / "statement.md"
    path.write_text(STATEMENT)
    done = _cli("boundary", str(path), "--objective", "leximin", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert {"constraints", "unparsed", "boundary", "options"} <= set(report)
    assert report["boundary"] == {"n": 1000, "m": 1000, "a_i": 1000000000}
    assert [c["kind"] for c in report["constraints"]] == ["scalar_range", "scalar_range", "product", "indexed_range"]
    assert report["unparsed"] == [] and report["options"] == []


def test_stab_boundary_missing_file_is_a_usage_error(tmp_path):
    done = _cli("boundary", str(tmp_path / "nope.md"), "-f", "json")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [f"error: cannot read statement file {tmp_path / 'nope.md'}: no such file"]


def test_stab_layout_and_keyword_scenarios(tmp_path):
    path = tmp_path / "statement.md"
    path.write_text(STATEMENT + "\nUse Dijkstra's algorithm if you like.\n")
    sample = tmp_path / "sample.in"
    sample.write_text("2 3\n1 2\n")
    done = _cli("layout", str(path), "--sample", str(sample), "-f", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"layout": "n m a[n]", "verified": True, "note": "", "dropped_constraints": []}
    done = _cli("scenarios", str(path), "--mode", "keyword", "--format", "json")
    assert done.returncode == 0, done.stderr
    hits = json.loads(done.stdout)
    assert [h["scenario"] for h in hits] == ["graph_shortest_path"] and hits[0]["via"] == ["keyword"]


def test_stab_boundary_on_hostile_statements(tmp_path):
    """The issue's attacks through the command: a 147-byte set that used to hang it, a
    4,400-digit number that raised, and bytes that are not UTF-8."""
    path = tmp_path / "attack.md"
    path.write_text(r"n ∈ \{1" + ", 2" * 40 + r", \ldots, n\}" + "\n1 ≤ m ≤ " + "9" * 4400 + "\n")
    done = _cli("boundary", str(path), "-f", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["constraints"] == [] and len(report["unparsed"]) == 2
    binary = tmp_path / "binary.md"
    binary.write_bytes(b"\xff\xfe1 \xe2\x89\xa4 n \xe2\x89\xa4 10\x00\x80")
    done = _cli("boundary", str(binary), "-f", "json")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and "not UTF-8" in done.stderr


def test_stab_boundary_objective_option(tmp_path):
    path = tmp_path / "grid.md"
    path.write_text(r"$1 \le n, m \le 10^5$, $n \cdot m \le 10^6$")
    weighted = json.loads(_cli("boundary", str(path), "-f", "json").stdout)  # STAB's default: the authors' sum
    leximin = json.loads(_cli("boundary", str(path), "--objective", "leximin", "-f", "json").stdout)
    assert leximin["boundary"] == {"n": 1000, "m": 1000} and leximin["objective"] == "leximin"
    assert weighted["boundary"] == {"n": 100000, "m": 10} and weighted["objective"] == "weighted"
    bad = _cli("boundary", str(path), "--objective", "product")
    assert bad.returncode == 2 and "--objective" in bad.stderr and "Traceback" not in bad.stderr
    assert _cli("scenarios", str(path), "--mode", "both").returncode == 2


@pytest.mark.e2e
def test_stab_spec_prints_the_batch_prompt_and_per_test_prompts(tmp_path):
    path = tmp_path / "statement.md"
    path.write_text(STATEMENT + "\nSort the array in non-decreasing order first.\n")
    done = _cli("spec", str(path))
    assert done.returncode == 0, done.stderr
    assert "Write 5 different generators" in done.stdout and "`n` = 1000" in done.stdout
    assert "1. **Bubble sort** (Sorting" in done.stdout
    done = _cli("spec", str(path), "--variant", "stab-base", "--per-test", "--index", "2")
    assert done.returncode == 0 and "Write generator 2 of 5" in done.stdout
    assert "Resolved boundary" not in done.stdout and "Adversarial scenarios" not in done.stdout
    assert _cli("spec", str(path), "--per-test", "--index", "9").returncode == 2
    assert _cli("spec", str(path), "--mode", "everything").returncode == 2
