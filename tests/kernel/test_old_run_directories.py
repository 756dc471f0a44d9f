"""Run directories written before the score record had typed fields still load.

Older tczoo wrote a scoring crash as ``detail["error"]`` (``detail["infrastructure"]``
when the sandbox failed) and a runner's count of valid tests as ``metrics["n_valid"]``;
``ScoreRecord`` reads them into ``error``, ``infrastructure`` and ``n_valid``. The
committed recorded runs (``results/runs/``) are such directories: they load, their
records carry the fields, and their report still prints the tables committed beside
them in ``results/``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tczoo.report import analyse, render, run_report
from tczoo.schema import RENAMED_METRICS, ScoreRecord
from tczoo.store import RunStore

ROOT = Path(__file__).resolve().parents[2]
RUNS = sorted(p for p in (ROOT / "results" / "runs").iterdir() if (p / "config.json").is_file())
# result files that print a recorded run's report (their table rows are `tczoo report RUN -f md`'s)
PRINTED = {"quickstart-crux": "quickstart-crux.md", "kattis-tcbench-crux-lcb": "kattis-tcbench-crux-lcb.md"}


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


@pytest.mark.parametrize("run_dir", RUNS, ids=[p.name for p in RUNS])
def test_a_recorded_run_loads_with_its_counts_in_the_typed_fields(run_dir):
    raw = _lines(run_dir / "scores.jsonl")
    assert raw and all("n_valid" not in line and "error" not in line for line in raw)  # written by the old tczoo
    store = RunStore.open(run_dir)
    records = store.all_scores()
    assert len(records) == len(raw)
    for line, record in zip(raw, records):
        old = line["metrics"].get("n_valid")
        assert record.n_valid == (None if old is None else int(old))
        assert "n_valid" not in record.metrics
        # metrics renamed since load under their new names (n_test_se -> n_test_sandbox_errors)
        assert {RENAMED_METRICS.get(k, k): v for k, v in line["metrics"].items() if k != "n_valid"} == record.metrics
        assert record.error == line["detail"].get("error") and record.infrastructure is False
    _, tables, summary = run_report(run_dir)
    assert tables and summary.cells and not any(c.score_errors for c in summary.cells.values())
    printed = PRINTED.get(run_dir.name)
    if printed is not None:
        committed = set((ROOT / "results" / printed).read_text().splitlines())
        rows = [x for x in render(tables, "md").splitlines() if x.startswith("|")]
        assert rows and [x for x in rows if x not in committed] == []


def test_an_old_scoring_crash_is_read_as_one_and_counted_apart(tmp_path):
    run_dir = tmp_path / "run"
    shutil.copytree(RUNS[0], run_dir)
    lines = _lines(run_dir / "scores.jsonl")
    # as tczoo wrote a unit whose scoring met a sandbox failure, before the fields existed
    lines[0]["metrics"] = {}
    lines[0]["detail"] = {"error": "InfrastructureFailure: 2 run(s) met a sandbox error", "infrastructure": True}
    (run_dir / "scores.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    record = RunStore.open(run_dir).all_scores()[0]
    assert (record.error, record.infrastructure, record.detail, record.n_valid) == (
        "InfrastructureFailure: 2 run(s) met a sandbox error", True, {}, None)
    cells = analyse(RunStore.open(run_dir)).cells.values()
    assert sum(c.score_errors for c in cells) == 1
    assert sum(c.failures[("score", "infrastructure")] for c in cells) == 1


def test_a_record_written_now_reads_back_the_same():
    record = ScoreRecord(runner="hackrate", method="crux", model="m", problem_id="p", metrics={"pass_rate": 50.0},
                         n_valid=2, error=None)
    again = ScoreRecord.model_validate_json(record.model_dump_json())
    assert again == record and again.n_valid == 2 and "n_valid" not in again.metrics


def test_an_old_count_that_is_not_a_count_is_refused():
    with pytest.raises(ValueError):
        ScoreRecord(runner="r", method="m", model="x", problem_id="p", metrics={"n_valid": -1.0})
