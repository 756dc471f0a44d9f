"""``tczoo stab ...`` through the real entry point (``python -m tczoo.cli``)."""

from __future__ import annotations

import json
import subprocess
import sys

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
    done = _cli("boundary", str(path), "--format", "json")
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
