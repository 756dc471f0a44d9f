"""--repeats R: every unit R times with its own sample indices (the cache keeps each), the
report's tables on repeat 0 and the spread over the R repeats, computed here by hand from
the score records."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tczoo.schema import REPEAT_STRIDE, RunConfig, repeat_key, repeat_of

pytestmark = pytest.mark.e2e


def _tczoo(*args):
    return subprocess.run([sys.executable, "-m", "tczoo.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=900)


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_repeat_keys_round_trip_and_repeat_0_is_the_plain_key():
    assert repeat_key("", 0) == "" and repeat_key("s1", 0) == "s1"
    assert repeat_of(repeat_key("s1", 2)) == 2 and repeat_of(repeat_key("wrong-3/r1", 4)) == 4
    assert repeat_of("wrong-3/r1") == 0 and repeat_of("") == 0


def test_a_run_without_repeats_keeps_its_folder():
    from tczoo.cli.runs import default_run_dir

    config = RunConfig(methods=["crux"], model="scripted:x.jsonl", benchmark="zoo-mini")
    assert default_run_dir(config) == default_run_dir(config.model_copy(update={"repeats": 1}))
    assert default_run_dir(config) != default_run_dir(config.model_copy(update={"repeats": 2}))


def test_repeats_run_every_unit_again_and_report_the_spread(tmp_path):
    answers = [json.dumps([{"input": "1\n1 5\n", "output": "5\n"}]),
               json.dumps([{"input": "2\n1 3\n1 7\n", "output": "7\n"}, {"input": "1\n1 5\n", "output": "5\n"}]),
               json.dumps([{"input": "3\n2 5\n2 5\n2 5\n", "output": "10\n"}])]
    rules = tmp_path / "rules.jsonl"
    rules.write_text(json.dumps({"match": "", "responses": answers}) + "\n")
    out = tmp_path / "run"
    args = ["run", "-m", "crux", "--model", f"scripted:{rules}", "-p", "zm01,zm04", "--repeats", "3", "--out", out,
            "-f", "json"]
    done = _tczoo(*args)
    assert done.returncode == 0, done.stderr[-3000:]
    gens = _lines(out / "generations.jsonl")
    assert sorted(g["task"] for g in gens) == ["", "", "@rep1", "@rep1", "@rep2", "@rep2"]
    samples = sorted({x["sample"] // 1000 for x in _lines(out / "exchanges.jsonl")})
    assert samples == [0, REPEAT_STRIDE, 2 * REPEAT_STRIDE]  # each repeat asked the model as its own sample

    tables = json.loads(done.stdout)
    main = tables[0]
    spread = next(t for t in tables if t["title"] == "hackrate: spread over repeats")
    scores = _lines(out / "scores.jsonl")
    by_repeat: dict[int, list[float]] = {}
    for s in scores:
        by_repeat.setdefault(repeat_of(s["task"]), []).append(s["metrics"]["hack_rate"])
    hr = {k: sum(v) / len(v) for k, v in by_repeat.items()}  # HackRate: the mean over the two problems
    [row] = [r for r in spread["rows"] if r["metric"] == "HR"]
    assert [row[f"repeat {k}"] for k in range(3)] == [pytest.approx(hr[k]) for k in range(3)]
    mean = sum(hr.values()) / 3
    sd = (sum((v - mean) ** 2 for v in hr.values()) / 2) ** 0.5
    assert row["mean"] == pytest.approx(mean) and row["SD"] == pytest.approx(sd) and row["repeats"] == 3
    # the main table is repeat 0's, and says so
    assert main["rows"][0]["HR"] == pytest.approx(hr[0]) and main["rows"][0]["units"] == 6
    assert any("repeat 0 of 3" in n for n in main["notes"])

    again = _tczoo(*args)  # the same command: nothing is generated again
    assert again.returncode == 0, again.stderr[-2000:]
    assert len(_lines(out / "generations.jsonl")) == 6

    # the same numbers in long format, one row per (unit, metric), as the records hold them
    long = _tczoo("report", out, "--per-problem", "-f", "json")
    assert long.returncode == 0, long.stderr[-2000:]
    [table] = json.loads(long.stdout)
    assert table["columns"] == ["runner", "model", "method", "problem", "sample", "repeat", "metric", "value",
                                "status"]
    hr_rows = [r for r in table["rows"] if r["metric"] == "hack_rate"]
    assert sorted((r["problem"], r["repeat"], r["value"]) for r in hr_rows) == sorted(
        (s["problem_id"], repeat_of(s["task"]), s["metrics"]["hack_rate"]) for s in scores)
    assert {r["status"] for r in table["rows"]} == {"ok"} and all(r["sample"] in ("", "@rep1", "@rep2")
                                                                 for r in hr_rows)
    # one CSV file per table, numbers as numbers and each interval two columns
    folder = tmp_path / "csv"
    written = _tczoo("report", out, "--csv", folder)
    assert written.returncode == 0, written.stderr[-2000:]
    files = sorted(p.name for p in folder.glob("*.csv"))
    assert files[0].startswith("01-tc-bench-hackrate") and any("spread-over-repeats" in f for f in files)
    import csv

    [first] = list(csv.DictReader((folder / files[0]).open()))
    assert float(first["HR"]) == pytest.approx(hr[0]) and "HR 95% CI low" in first and first["status"] == "ok"
