"""HackRate's sandbox-error counts no longer read as standard errors (n_test_se ->
n_test_sandbox_errors): records written with the old names load under the new ones,
the committed run directories included, and the report's note counts them."""

from __future__ import annotations

from pathlib import Path

from tczoo.runners.hackrate_tables import summarize
from tczoo.schema import RENAMED_METRICS, ScoreRecord
from tczoo.store import RunStore

ROOT = Path(__file__).resolve().parents[2]


def test_old_names_load_as_the_new_ones():
    old = ScoreRecord.model_validate({"runner": "hackrate", "method": "crux", "model": "m", "problem_id": "p",
                                      "metrics": {"n_tests": 3, "n_valid": 2, "n_test_se": 1, "n_wrong_se": 2,
                                                  "hack_rate": 50.0, "ac": 50.0, "wa": 50.0, "re": 0.0, "tle": 0.0}})
    assert old.metrics == {"n_tests": 3, "n_test_sandbox_errors": 1, "n_wrong_sandbox_errors": 2, "hack_rate": 50.0,
                           "ac": 50.0, "wa": 50.0, "re": 0.0, "tle": 0.0}
    assert old.n_valid == 2 and not any(k.endswith("_se") for k in old.metrics)
    note = next(n for n in summarize([old])[0].notes if n.startswith("sandbox errors"))
    assert "1 test(s) and 2 wrong code(s) could not be judged" in note
    assert set(RENAMED_METRICS) == {"n_test_se", "n_wrong_se"}


def test_the_committed_runs_read_under_the_new_names():
    raw = (ROOT / "results" / "runs" / "quickstart-crux" / "scores.jsonl").read_text()
    assert '"n_test_se"' in raw  # written before the rename
    scores = RunStore.open(ROOT / "results" / "runs" / "quickstart-crux").scores()
    assert scores and all("n_test_sandbox_errors" in s.metrics and "n_test_se" not in s.metrics for s in scores)
