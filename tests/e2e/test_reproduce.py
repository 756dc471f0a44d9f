"""Every reproduction target runs end to end through ``tczoo reproduce`` with a scripted
model on zoo-mini's zm01 (budgets reduced with --params): it writes
results/<paper>/<target>.md and .csv (and .png for a figure) with our numbers, the
paper's numbers from its tables beside them and the settings that differ; the result
files are rebuilt byte for byte from the recorded runs (--report-only), and a new run
that replays the recorded answers (replay:DIR) writes the same files byte for byte."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from experiment_fixtures import write_rules
from select_fixtures import CANDIDATES as SELECT_CANDIDATES
from tczoo.experiments.reproduce import default_out, installed, plan
from tczoo.experiments.targets import papers, targets

# Reduced budgets per target (the CLI's --params): one problem, one or two responses,
# C++ timings only (zoo-mini's Python solutions can time out on a loaded machine, and
# STAB's rules then exclude the problem), fewer restarts and draws in the analyses, and
# two seconds of fuzzing for WEDGE (its paper: an hour; ours by default: a minute).
FAST = {
    "tcbench-fig4a": {"analysis": {"restarts": 20}},
    "tcbench-fig4c": {"analysis": {"draws": 2}},
    "tcbench-fig6": {"analysis": {"counts": [1, 2]}},
    "tcbench-fig7": {"build": {"restarts": 20}},
    "tcbench-fig8": {"build": {"restarts": 20}},
    "harness-table1": {"runner:bugfind": {"responses": 1, "max_triplets": 2}},
    "harness-table3": {"runner:bestofn": {"n": 3}},
    "stab-table2": {"runner:efficiency": {"languages": ["cpp"]}},
    "stab-table3": {"runner:efficiency": {"languages": ["cpp"]}},
    "stab-table4": {"runner:efficiency": {"languages": ["cpp"]}, "wedge": {"fuzz_seconds": 2}},
    "hardtests-precision": {"hardtestgen": {"rpgen_inputs": 3, "rpgen_attempts": 4, "hackgen_inputs": 1,
                                            "hackgen_attempts": 1}},
    "saga-tcgbench": {"saga": {"differential_pairs": 1}},
    "codet-humaneval": {"codet": {"solutions": 4, "test_samples": 2}},
    "codet-humaneval-codegen16b": {"codet": {"solutions": 4, "test_samples": 2}},
    "evalplus-humaneval": {"evalplus-mut": {"llm_rounds": 1, "mutants": 4}},
    # issue 50: the fixture's own buggy candidate (the committed file has none for Mini/0), fewer answers
    "utgen-humaneval": {"runner:debugging": {"candidates": str(SELECT_CANDIDATES)}, "utgen": {"unit_tests": 2},
                        "utdebug": {"unit_tests": 2, "output_votes": 2}},
    "utdebug-humaneval": {"runner:debugging": {"candidates": str(SELECT_CANDIDATES)},
                          "utdebug": {"unit_tests": 2, "output_votes": 2}},
    "sstar-humaneval": {"sstar": {"solutions": 4}},
    "coderm-humaneval": {"coderm": {"solutions": 3, "unit_tests": 2},
                         "runner:bestofn": {"statement_time_s": 2.0, "test_counts": [1, 2], "draws": 4}},
    "coderm-scaling-humaneval": {"coderm": {"solutions": 3, "unit_tests": 2},
                                 "runner:bestofn": {"statement_time_s": 2.0, "test_counts": [1, 2], "draws": 4}},
}
HUMANEVAL = Path(__file__).parents[1] / "fixtures" / "humaneval" / "mini.jsonl"


def _evalplus_missing(target) -> bool:
    """evalplus-mut needs the evalplus library (scripts/install.sh; not in a lean install)."""
    import importlib.util

    return "evalplus-mut" in target.methods and importlib.util.find_spec("evalplus") is None


RUNNABLE = [n for n, t in targets().items() if not t.missing_methods() and not _evalplus_missing(t)]


def _where(target: str) -> tuple[str | None, list[str]]:
    """(benchmark, problems) a target runs on here: zm01, or the HumanEval fixture's Mini/0
    for the function-level targets."""
    if targets()[target].benchmark.split(":")[0] == "humaneval":  # humaneval, or humaneval:FILE (CodeT's)
        return f"humaneval:{HUMANEVAL}", ["Mini/0"]
    return None, ["zm01"]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("reproduce")
    model = write_rules(root / "zm01.jsonl")
    env = dict(os.environ, TCZOO_CACHE=os.environ.get("TCZOO_CACHE", str(root / "cache")))
    return root, model, env


def _runs(root: Path, target: str) -> Path:
    """The run folder ``tczoo reproduce`` picks by default, under ``root``: targets of one
    experiment with the same settings share it (STAB's Tables 2 and 3), a target with
    other --params gets its own (Table 4, which fuzzes WEDGE for two seconds)."""
    benchmark, problems = _where(target)
    return default_out(targets()[target], plan(targets()[target], "scripted", benchmark=benchmark, problems=problems,
                                               params=FAST.get(target)), root)


def _reproduce(workspace, target: str, *extra: str, model: str | None = None,
               where: str = "") -> subprocess.CompletedProcess:
    root, scripted, env = workspace
    benchmark, problems = _where(target)
    args = [sys.executable, "-m", "tczoo.cli", "reproduce", target, "--model", model or scripted,
            "--problems", ",".join(problems), *(["--benchmark", benchmark] if benchmark else []),
            "--out", str(_runs(root / f"runs{where}", target)),
            "--results", str(root / f"results{where}"), "-f", "json", *extra]
    if target in FAST:
        args += ["--params", json.dumps(FAST[target])]
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=1800)


def _csv(path: Path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(path.read_text())))


def _number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _sharing_one_run() -> list:
    """RUNNABLE, where targets that share a run folder (``_runs``) run on one test
    worker, in order: the first generates and scores, the others reuse its records."""
    folders = {name: _runs(Path("/"), name).name for name in RUNNABLE}
    shared = {f for f, n in Counter(folders.values()).items() if n > 1}
    return [pytest.param(name, marks=[pytest.mark.xdist_group(f"reproduce-{folders[name]}")])
            if folders[name] in shared else name for name in RUNNABLE]


@pytest.mark.parametrize("name", _sharing_one_run())
def test_target_runs_end_to_end_and_rebuilds_byte_for_byte(workspace, name):
    root = workspace[0]
    target = targets()[name]
    done = _reproduce(workspace, name)
    assert done.returncode == 0, done.stderr[-3000:]
    folder = root / "results" / target.paper
    md, table = folder / f"{name}.md", folder / f"{name}.csv"
    files = [md, table] + ([folder / f"{name}.png"] if target.figure else [])
    assert all(f.is_file() for f in files), files

    rows = _csv(table)
    ours = [r for r in rows if r["source"] == "ours"]
    layout = target.layout
    numbers = [c for c in layout.columns if any(_number(r[c]) for r in ours)]
    assert numbers, f"{name}: no number of ours in {layout.columns}"
    for method in installed(target.methods):  # an optional method not installed: said in the header
        mine = [r for r in ours if r.get("method", r.get("selector")) == method]
        assert mine or "method" not in layout.keys, f"{name}: no row for {method}"
        assert all(any(_number(r[c]) for c in layout.columns) for r in mine), f"{name}: {method} has no number"
    # every row of the paper's tables, cited by table
    paper_rows = [r for r in rows if r["source"] != "ours"]
    expected = sum(len(t.rows) for _, t in target.paper_tables())
    assert len(paper_rows) == expected
    assert all(r["reference"] in {t.ref for _, t in target.paper_tables()} for r in paper_rows)

    text = md.read_text()
    assert text.startswith(f"# {target.title}\n")
    assert f"`tczoo reproduce {name}" in text and "### settings: here and in the paper" in text
    assert papers()[target.paper].cite in text
    for _, paper_table in target.paper_tables():
        assert paper_table.ref in text
        if paper_table.claims:
            assert paper_table.claims[0] in text
    for method in set(target.methods) - set(installed(target.methods)):
        assert f"{method} not installed: no row" in text
    if target.run is not None and target.benchmark.split(":")[0] == "humaneval":
        assert f"humaneval:{HUMANEVAL}: 1 problem(s) chosen with --problems (Mini/0)" in text
    elif target.run is not None:
        assert "zoo-mini: 1 problem(s) chosen with --problems (zm01-commission-deadlines)" in text
    elif target.analysis.over == "benchmark":  # what the construction kept of what was loaded, never "0 problems"
        assert "zoo-mini (--problems): 1 problem(s) loaded, 1 kept by TC-Bench's construction" in text
    if name in FAST and target.run is not None and any(k.startswith("runner:") for k in FAST[name]):
        assert "| --params |" in text  # a reduced budget is a difference of setting, said in the header
    printed = json.loads(done.stdout)
    assert [t["title"] for t in printed] == ["settings: here and in the paper", target.title]
    # the header states what was run: sampling as every method's calls asked for it, the
    # reruns / responses / tests the runner used, the settings the paper fixes (issue 26)
    here = {r["setting"]: r["here"] for r in printed[0]["rows"]}
    if target.run is not None:
        assert here["sampling"].startswith("as run: ") and "temperature" in here["sampling"], here
    if target.paper == "trails":
        assert here["hoareprompt unroll"] == "0" and here["trails scenarios"] == "3", here
        assert here["samples"] == "3 run(s) per code, 2 code(s) (1 correct, 1 incorrect)", here
        assert "temperature 0.5" in here["sampling"]
    if target.paper == "stab":
        assert here["stab objective"] == '"weighted"' and here["runner:efficiency tle"] == '"exposes"', here
        assert here["scenarios (M2)"].startswith("zm01-commission-deadlines: "), here
        assert "temperature 1.0" in here["sampling"] and "top-p 0.95" in here["sampling"]
    if name == "harness-table1":
        assert here["io strict_answers"] == here["harness strict_answers"] == "true", here
        assert "1 response(s) per triplet, 2 triplet(s)" in here["samples"], here
    # every "here" comes from the run (issue 45): no placeholder, "paper default" never claimed
    assert "tczoo's implementation" not in text and "paper default" not in text
    assert all(r["here"] != "not recorded by this run" for r in printed[0]["rows"]), printed[0]["rows"]
    if target.run is not None and target.run.runner == "agreement":
        assert here["tests per suite"] and "on average" in here["tests per suite"], here
        assert "tests/suite" in layout.columns
    if name == "saga-tcgbench":  # the paper's population and its @k columns
        assert here["judged"].startswith("saga: every labelled submission, those shown to the method included"), here
        assert "wrong submission(s), 5 with a corrected version" in here["shown"], here
        assert {"DR@20", "DR@50", "VAcc@20", "VAcc@50"} <= set(rows[0]), rows[0]
    if name == "cco-tpr-tnr":  # cco in-sample (the paper's), ccplus held out; the released CC+ tests are no ccplus
        assert "cco: every labelled submission" in here["judged"] and "ccplus: the held-out" in here["judged"], here
        assert here["cco feedback_rounds"] == "3" and "python generator program(s)" in here["generators"], here
        assert "cco: temperature 1.0, at most 8000 tokens (the method's default)" in here["sampling"], here
        assert "CodeContests+ (released tests)" in {r["method"] for r in paper_rows}
        assert "ccplus" not in {r["method"] for r in paper_rows}
    if name == "codet-humaneval":  # N and M as run, not "1 generation per task"
        assert (here["codet solutions"], here["codet test_samples"]) == ("4", "2"), here
    if name in ("tcbench-table1", "tcbench-fig5"):
        assert here["runner:hackrate ask_scale"] == "5" and " tests asked (1x = " in here["budget"], here
        assert here["validators"].startswith("zm01-commission-deadlines: "), here

    if target.figure is not None:
        import matplotlib.image

        image = matplotlib.image.imread(folder / f"{name}.png")
        assert image.shape[0] >= 400 and image.shape[1] >= 700
    before = {f: f.read_bytes() for f in files}
    again = _reproduce(workspace, name, "--report-only")
    assert again.returncode == 0, again.stderr[-3000:]
    assert {f: f.read_bytes() for f in files} == before

    # Replayed (replay:DIR, no model): a new run from the recorded answers writes the same
    # files, byte for byte — where scoring is deterministic (STAB's ASR is timing).
    if target.run is None or target.paper == "stab":
        return
    replayed = _reproduce(workspace, name, model=f"replay:{_runs(root / 'runs', name)}",
                          where="-replayed")
    assert replayed.returncode == 0, replayed.stderr[-3000:]
    for f in files:
        assert (root / "results-replayed" / target.paper / f.name).read_bytes() == before[f], f.name


def test_a_target_whose_methods_are_missing_says_so(workspace):
    missing = [n for n, t in targets().items() if t.missing_methods()]
    if not missing:
        pytest.skip("every target's methods are installed")
    done = _reproduce(workspace, missing[0])
    assert done.returncode == 2 and "which are not installed" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("args, message", [
    (["nope"], "unknown target 'nope'"),
    ([], "name a target"),
    (["tcbench-table1", "--params", '{"analysis": {"draws": 2}}'], "runs no analysis"),
    (["tcbench-fig7", "--params", '{"crux": {}}'], "runs no method"),
    (["tcbench-table1", "--report-only", "--out", "/nonexistent/dir"], "holds no comparison"),
])
def test_reproduce_usage_errors_are_one_line(workspace, args, message):
    _, model, env = workspace
    done = subprocess.run([sys.executable, "-m", "tczoo.cli", "reproduce", *args, "--model", model],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_reproduce_lists_its_targets(workspace):
    done = subprocess.run([sys.executable, "-m", "tczoo.cli", "reproduce", "--list", "-f", "json"],
                          capture_output=True, text=True, env=workspace[2], timeout=120)
    assert done.returncode == 0
    listed = {r["target"]: r for r in json.loads(done.stdout)}
    assert set(listed) == set(targets())
    assert listed["tcbench-fig7"]["methods"] == "(none: benchmark analysis)"


def test_figures_7_and_8_share_one_construction_of_the_benchmark(tmp_path):
    """Both read the benchmark built by WrongSelect: the second target must find the
    first one's construction (minutes on the Kattis packages), not build it again."""
    outs = {default_out(targets()[n], plan(targets()[n], "", problems=["zm01"]), tmp_path)
            for n in ("tcbench-fig7", "tcbench-fig8")}
    assert len(outs) == 1
    other = default_out(targets()["tcbench-fig7"], plan(targets()["tcbench-fig7"], "", problems=["zm02"]), tmp_path)
    assert other not in outs  # another benchmark or subset: another construction
