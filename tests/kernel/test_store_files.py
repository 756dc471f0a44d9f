"""Large generated test texts are stored beside generations.jsonl, not inside it: a file
per content under DIR/inputs/, named by its digest, the record holding a reference;
read back exactly (lone surrogates and all); a missing or altered file is an error
naming the record, never a silently different test."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tczoo.schema import GenerationRecord, Provenance, RunConfig, TestCase, TestSuite
from tczoo.store import FILE_CHARS, RunStore, RunStoreError

BIG = "7\n" + "1 2 3 \udcff\n" * (FILE_CHARS // 8)  # over the threshold, with a byte that is not UTF-8


def _store(tmp_path):
    config = RunConfig(methods=["crux"], model="scripted:x", benchmark="zoo-mini")
    return RunStore.open(tmp_path / "run", config)


def _record(tests):
    return GenerationRecord(method="crux", model="m", problem_id="p", task="",
                            suite=TestSuite(problem_id="p", tests=tests, provenance=Provenance(method="crux")))


def test_a_large_input_goes_beside_the_record_and_comes_back_exactly(tmp_path):
    store = _store(tmp_path)
    store.add_generation(_record([TestCase(input=BIG, output="x" * (FILE_CHARS + 1)), TestCase(input="1\n")]))
    store.add_generation(_record([TestCase(input=BIG)]))  # the same text again: one file
    store.close()
    line = (tmp_path / "run" / "generations.jsonl").read_text().splitlines()[0]
    assert len(line) < 2000  # the record holds references, not the texts
    refs = json.loads(line)["suite"]["tests"]
    assert refs[0]["input"]["chars"] == len(BIG) and refs[1]["input"] == "1\n"
    files = sorted((tmp_path / "run" / "inputs").iterdir())
    assert len(files) == 2 and all(f.stat().st_mode & 0o777 == 0o600 for f in files)
    back = RunStore.open(tmp_path / "run").all_generations()
    assert back[0].suite.tests[0].input == BIG and back[0].suite.tests[0].output == "x" * (FILE_CHARS + 1)
    assert back[1].suite.tests[0].input == BIG and back[0].suite.tests[1].input == "1\n"


def test_an_altered_or_missing_file_is_an_error_naming_the_record(tmp_path):
    store = _store(tmp_path)
    store.add_generation(_record([TestCase(input=BIG)]))
    store.close()
    [path] = (tmp_path / "run" / "inputs").iterdir()
    path.write_text(json.dumps("1\n"))
    with pytest.raises(RunStoreError, match=r"generations.jsonl:1: .* does not hold the text the record names"):
        RunStore.open(tmp_path / "run").generations()
    path.unlink()
    with pytest.raises(RunStoreError, match=r"generations.jsonl:1: a test text is missing or unreadable"):
        RunStore.open(tmp_path / "run").generations()


def test_a_reference_that_names_a_path_is_refused(tmp_path):
    store = _store(tmp_path)
    store.add_generation(_record([TestCase(input="1\n")]))
    store.close()
    gens = tmp_path / "run" / "generations.jsonl"
    record = json.loads(gens.read_text())
    record["suite"]["tests"][0]["input"] = {"$file": "../../etc/passwd", "chars": 3}
    gens.write_text(json.dumps(record) + "\n")
    with pytest.raises(RunStoreError, match=r"a test text refers to '../../etc/passwd'"):
        RunStore.open(tmp_path / "run").generations()


@pytest.mark.e2e
def test_a_run_with_a_huge_generated_input_reports_as_before(tmp_path):
    huge = "1 1\n" + "1\n" * (FILE_CHARS // 2)
    rules = tmp_path / "rules.jsonl"
    rules.write_text(json.dumps({"match": "", "response": json.dumps([{"input": huge, "output": "1\n"},
                                                                      {"input": "1 1\n1\n", "output": "1\n"}])}) + "\n")
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "-m", "crux", "--model", f"scripted:{rules}",
                           "-p", "zm04", "--out", str(out), "-f", "json"], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (out / "generations.jsonl").stat().st_size < 20_000 and len(list((out / "inputs").iterdir())) == 1
    [g] = RunStore.open(out).generations()
    assert huge in [t.input for t in (*g.suite.tests, *g.suite.rejected)]
