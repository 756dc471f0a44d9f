"""Benchmark loaders on fixtures in the exact upstream schemas (no network)."""

from __future__ import annotations

import base64
import json
import os
import pickle
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from tczoo.benchmarks.hub import livecodebench
from tczoo.benchmarks.loaders import (
    HUB_BENCHMARKS,
    BenchmarkLoadError,
    load_benchmark_spec,
)
from tczoo.schema import Language, Problem

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "loaders"


def _roundtrip(problems: list[Problem]) -> None:
    for p in problems:
        assert Problem.model_validate_json(p.model_dump_json()) == p


# ------------------------------------------------------------------ TC-Bench


def test_tcbench_jsonl():
    problems = load_benchmark_spec(f"tcbench:{FIX / 'tcbench.jsonl'}")
    assert [p.id for p in problems] == ["TCB-0001", "TCB-0002"]
    p = problems[0]
    assert (p.time_limit_ms, p.memory_limit_mb, p.rank, p.source) == (1000, 256, 2, "tcbench")
    assert p.samples[0].input == "1 2\n" and p.samples[0].output == "3\n"
    assert [s.language for s in p.solutions] == [Language.CPP, Language.PYTHON]
    assert p.golden_tests == []  # TC-Bench publishes none
    assert p.wrong_solutions[0].signature.verdicts == ["AC", "AC", "WA", "WA", "AC"]
    assert p.wrong_solutions[0].signature.bits == [0, 0, 1, 1, 0]
    q = problems[1]
    assert q.solutions[0].language is Language.C and q.memory_limit_mb == 512
    assert len(q.wrong_solutions) == 2  # the third one's language cannot run here
    assert "brainfuck" in q.meta["skipped_programs"][0]
    _roundtrip(problems)


def test_tcbench_json_list_directory_and_parquet(tmp_path):
    from_list = load_benchmark_spec(f"tcbench:{FIX / 'tcbench_list.json'}")
    assert from_list == load_benchmark_spec(f"tcbench:{FIX / 'tcbench.jsonl'}")
    d = tmp_path / "snap" / "data"
    d.mkdir(parents=True)
    shutil.copy(FIX / "tcbench.jsonl", d / "test-00000.jsonl")
    assert [p.id for p in load_benchmark_spec(f"tcbench:{tmp_path / 'snap'}")] == ["TCB-0001", "TCB-0002"]
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    records = [json.loads(line) for line in (FIX / "tcbench.jsonl").read_text().splitlines()]
    pq.write_table(pa.Table.from_pylist(records), tmp_path / "test.parquet")
    assert load_benchmark_spec(f"tcbench:{tmp_path / 'test.parquet'}") == from_list


def test_limit_keeps_the_first_problems():
    assert len(load_benchmark_spec(f"tcbench:{FIX / 'tcbench.jsonl'}", limit=1)) == 1


# ------------------------------------------------------------------ CodeContests


def test_codecontests_jsonl():
    problems = load_benchmark_spec(f"codecontests:{FIX / 'code_contests.jsonl'}")
    p = problems[0]
    assert p.id == "1000_A. Sum of Two"
    assert (p.time_limit_ms, p.memory_limit_mb) == (1500, 256)  # {seconds: 1, nanos: 5e8}, 2^28 bytes
    assert [s.language for s in p.solutions] == [Language.CPP, Language.PYTHON, Language.JAVA]
    assert p.meta["skipped_programs"] == {"solutions:PYTHON": 1, "incorrect_solutions:UNKNOWN_LANGUAGE": 1}
    assert [w.language for w in p.wrong_solutions] == [Language.CPP]
    assert [s.input for s in p.samples] == ["1 2\n"]
    assert [t.name for t in p.golden_tests] == ["public-0", "private-0", "private-1", "generated-0"]
    assert p.golden_tests[1].output == "2000000000\n"
    assert p.tags == ["implementation", "math"]
    assert p.meta["source"] == "CODEFORCES" and p.meta["difficulty"] == "A"
    assert p.meta["cf_rating"] == 800
    q = problems[1]
    assert q.meta["source"] == "AIZU"
    assert (q.time_limit_ms, q.memory_limit_mb) == (2000, 256)  # null limits -> defaults, flagged
    assert q.meta["time_limit_default"] and q.meta["memory_limit_default"]
    _roundtrip(problems)


def test_codecontests_options():
    p = load_benchmark_spec(f"codecontests:{FIX / 'code_contests.jsonl'}", include_generated=False, max_solutions=1)[0]
    assert [t.name for t in p.golden_tests] == ["public-0", "private-0", "private-1"]
    assert len(p.solutions) == 1


# ------------------------------------------------------------------ LiveCodeBench


def test_livecodebench_jsonl_decodes_compressed_private_tests():
    problems = load_benchmark_spec(f"livecodebench:{FIX / 'livecodebench.jsonl'}")
    stdin, functional = problems
    assert stdin.id == "abc999_a" and stdin.entry_point is None
    assert [t.name for t in stdin.golden_tests] == ["public-0", "private-0", "private-1"]
    assert stdin.golden_tests[1].input == "4\n1 1 1 1\n" and stdin.golden_tests[1].output == "4\n"
    assert stdin.meta["testtype"] == "stdin" and stdin.meta["platform"] == "atcoder"
    assert functional.entry_point == "largestKSum"
    assert functional.meta["testtype"] == "functional"
    assert functional.golden_tests[1].input == "[3, 1, 2]\n2"
    assert functional.meta["starter_code"].startswith("class Solution")
    assert functional.title == "largest-k-sum"
    _roundtrip(problems)


def test_livecodebench_blob_round_trip_and_refuses_code_in_pickles():
    tests = [{"input": "1\n", "output": "2\n", "testtype": "stdin"}]
    assert livecodebench.decode_test_cases(livecodebench.encode_test_cases(tests)) == tests
    assert livecodebench.decode_test_cases(json.dumps(tests)) == tests

    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))

    blob = base64.b64encode(zlib.compress(pickle.dumps(Evil()))).decode()
    with pytest.raises(ValueError, match="refusing"):
        livecodebench.decode_test_cases(blob)


def test_livecodebench_bad_blob_names_the_record(tmp_path):
    rec = json.loads((FIX / "livecodebench.jsonl").read_text().splitlines()[0])
    rec["private_test_cases"] = "not base64 at all!"
    f = tmp_path / "lcb.jsonl"
    f.write_text(json.dumps(rec) + "\n")
    with pytest.raises(BenchmarkLoadError, match=r"record 0: .*neither JSON nor base64"):
        load_benchmark_spec(f"livecodebench:{f}")


# ------------------------------------------------------------------ HarnessLLM


def test_harnessllm_stdin_triplet():
    (p,) = load_benchmark_spec(f"harnessllm:{FIX / 'harnessllm_lcb_seen.jsonl'}")
    assert p.id == "lcb-seen-17" and p.entry_point is None
    assert p.solutions[0].name == "good_code" and "s[0]" in p.solutions[0].code
    assert p.wrong_solutions[0].name == "bad_code" and "s[-1]" in p.wrong_solutions[0].code
    assert p.solutions[0].language is Language.PYTHON
    assert p.meta["code_type"] == "input/output"


def test_harnessllm_functional_triplets():
    a, b = load_benchmark_spec(f"harnessllm:{FIX / 'harnessllm_mbpp_hard.jsonl'}")
    assert a.entry_point == "second_smallest" and a.meta["code_type"] == "functional"
    assert "set(nums)" in a.solutions[0].code and "set(" not in a.wrong_solutions[0].code
    assert b.entry_point == "countEven"  # "Solution().countEven" upstream
    assert b.meta["entry_point_raw"] == "Solution().countEven"
    _roundtrip([a, b])


def test_harnessllm_sets_state_no_limits(tmp_path):
    """The authors' 20 s stand in (they set no memory limit: 1024 MB), flagged as not given;
    a record with its own limits keeps them; a nonsense limit is refused."""
    (p,) = load_benchmark_spec(f"harnessllm:{FIX / 'harnessllm_lcb_seen.jsonl'}")
    assert (p.time_limit_ms, p.memory_limit_mb, p.limits_given) == (20000, 1024, False)
    f = tmp_path / "limits.jsonl"
    base = {"description": "d", "good_code": "print(1)", "bad_code": "print(2)"}
    f.write_text(json.dumps({**base, "time_limit_ms": 1500, "memory_limit_mb": 64}) + "\n")
    (q,) = load_benchmark_spec(f"harnessllm:{f}")
    assert (q.time_limit_ms, q.memory_limit_mb, q.limits_given) == (1500, 64, True)
    f.write_text(json.dumps({**base, "time_limit_ms": "fast"}) + "\n")
    with pytest.raises(BenchmarkLoadError, match="time_limit_ms must be a positive integer"):
        load_benchmark_spec(f"harnessllm:{f}")


def test_harnessllm_flat_records(tmp_path):
    f = tmp_path / "flat.json"
    f.write_text(json.dumps([{"description": "d", "good_code": "print(1)", "bad_code": "print(2)"}]))
    (p,) = load_benchmark_spec(f"harnessllm:{f}")
    assert p.id == "0" and p.meta["code_type"] == "input/output"


# ------------------------------------------------------------------ errors


def test_missing_file():
    with pytest.raises(FileNotFoundError, match="nope.jsonl"):
        load_benchmark_spec("tcbench:/nonexistent/nope.jsonl")


def test_unknown_schema_and_unknown_name():
    with pytest.raises(ValueError, match="unknown benchmark schema 'apps'"):
        load_benchmark_spec(f"apps:{FIX / 'tcbench.jsonl'}")
    with pytest.raises(ValueError, match="unknown benchmark 'nosuch'.*tcbench"):
        load_benchmark_spec("nosuch")
    with pytest.raises(ValueError, match="no path"):
        load_benchmark_spec("tcbench:")


def test_wrong_schema_names_the_record_and_fields():
    with pytest.raises(BenchmarkLoadError, match=r"record 0: not a codecontests record: missing field\(s\)"):
        load_benchmark_spec(f"codecontests:{FIX / 'tcbench.jsonl'}")
    with pytest.raises(BenchmarkLoadError, match="not a harnessllm record"):
        load_benchmark_spec(f"harnessllm:{FIX / 'livecodebench.jsonl'}")


def test_malformed_files(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"problem_id": 1}\n{oops\n')
    with pytest.raises(BenchmarkLoadError, match=r"bad.jsonl:2: not a JSON record"):
        load_benchmark_spec(f"tcbench:{bad}")
    other = tmp_path / "x.csv"
    other.write_text("a,b\n")
    with pytest.raises(BenchmarkLoadError, match="unsupported file type"):
        load_benchmark_spec(f"tcbench:{other}")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(BenchmarkLoadError, match="no .jsonl"):
        load_benchmark_spec(f"tcbench:{empty}")


# ------------------------------------------------------------------ hub


def test_hub_names():
    assert {"tcbench", "codecontests", "livecodebench"} <= set(HUB_BENCHMARKS)
    assert HUB_BENCHMARKS["tcbench"].repo == "Luoberta/TC-Bench"
    assert HUB_BENCHMARKS["codecontests"].repo == "deepmind/code_contests"
    harness = {k: v.repo for k, v in HUB_BENCHMARKS.items() if k.startswith("harnessllm-")}
    assert sorted(harness.values()) == sorted(
        f"Shiyu-Lab/Testcase_{n}" for n in ("MBPPHard", "LCB_Seen", "LCB_Unseen", "CF_Seen", "CF_Unseen")
    )


def test_hub_without_datasets_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "datasets", None)  # import datasets -> ImportError
    with pytest.raises(BenchmarkLoadError, match=r"pip install 'tczoo\[hf\]'"):
        load_benchmark_spec("tcbench")


@pytest.mark.e2e
def test_hub_offline_fails_with_one_clear_line():
    pytest.importorskip("datasets")
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    code = (
        "from tczoo.benchmarks.loaders import load_benchmark_spec\n"
        "try:\n    load_benchmark_spec('tcbench')\n"
        "except ValueError as e:\n    print('ERR', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    lines = [line for line in out.stdout.splitlines() if line.startswith("ERR")]
    assert len(lines) == 1, out.stdout + out.stderr
    assert "could not load 'tcbench' (Luoberta/TC-Bench" in lines[0]
    assert "tcbench:PATH" in lines[0]
