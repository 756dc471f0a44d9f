"""tczoo build-benchmark: judge the wrong-code pool, filter, WrongSelect, write TC-Bench JSONL."""

import json
import subprocess
import sys

from tczoo.benchmarks import load_benchmark


def test_build_benchmark_on_a_zoo_mini_problem_round_trips(tmp_path):
    out = tmp_path / "built.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "tczoo.cli", "build-benchmark", "--benchmark", "zoo-mini", "--problems", "zm09",
         "--restarts", "20", "--out", str(out)],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    [record] = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["problem_id"] == "zm09-prefix-periods"
    assert record["rank"] >= 5 and len(record["wrong_solutions"]) == record["rank"]
    assert all(set(w["output_str"]) <= set("AWTRMCO") for w in record["wrong_solutions"])
    [problem] = load_benchmark(f"tcbench:{out}")
    assert problem.rank == record["rank"] and len(problem.solutions) >= 3
    # The kept wrong codes are a basis: their failure rows are linearly independent.
    import numpy as np

    rows = np.array([w.signature.bits for w in problem.wrong_solutions], dtype=float)
    assert np.linalg.matrix_rank(rows) == len(rows)
