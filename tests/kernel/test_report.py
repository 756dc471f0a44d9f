"""tczoo report: paper layout in every format, and the test-time scaling plot (Figure 5)."""

import csv
import io
import json
import subprocess
import sys

import pytest


def _run(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "tczoo.cli", *args], capture_output=True, text=True, timeout=timeout)


@pytest.mark.e2e
def test_scaling_run_reports_and_plots(tmp_path):
    rules = tmp_path / "rules.jsonl"
    tests = [{"input": f"1 {k}\n{k}\n", "output": "1\n"} for k in range(1, 13)]
    rules.write_text(json.dumps({"match": "test cases", "response": json.dumps(tests)}) + "\n")
    out = tmp_path / "run"
    params = json.dumps({"runner:hackrate": {"scales": [1, 2]}})
    done = _run("run", "--method", "crux", "--model", f"scripted:{rules}", "--problems", "zm04",
                "--params", params, "--out", str(out))
    assert done.returncode == 0, done.stderr
    table, scaling, *_ = json.loads(_run("report", str(out), "--format", "json").stdout)
    assert table["columns"][9:11] == ["HR 1x", "HR 2x"]
    assert table["columns"][-7:] == ["PR incl. empty", "no tests", "n problems", "units", "failed", "no valid tests",
                                     "invalid inputs"]
    assert table["rows"][0]["intervals"]["HR"]["problems"] == 1  # one problem: what the interval rests on
    assert [r["k"] for r in scaling["rows"]] == [1, 2]  # one row per k: the reference's rank table
    md = _run("report", str(out), "--format", "md").stdout
    assert ("| model | method | problems | PR | PR 95% CI | AC | WA | RE | TLE | HR | HR 95% CI | HR 1x "
            "| HR 1x 95% CI | HR 2x | HR 2x 95% CI | PR incl. empty | no tests | n problems | units | failed | no valid tests | invalid inputs |") in md
    rows = list(csv.DictReader(io.StringIO(_run("report", str(out), "--format", "csv").stdout)))
    assert rows[0]["method"] == "CRUX" and rows[0]["table"] == table["title"]
    png = tmp_path / "scaling.png"
    plotted = _run("report", str(out), "--scaling-plot", str(png))
    assert plotted.returncode == 0, plotted.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_plot_without_scaling_columns_is_a_clear_error(tmp_path):
    rules = tmp_path / "rules.jsonl"
    rules.write_text(json.dumps({"match": "", "response": json.dumps([{"input": "1 1\n1\n", "output": "1\n"}])}) + "\n")
    out = tmp_path / "run"
    assert _run("run", "--method", "crux", "--model", f"scripted:{rules}", "--problems", "zm04",
                "--out", str(out)).returncode == 0
    proc = _run("report", str(out), "--scaling-plot", str(tmp_path / "x.png"))
    assert proc.returncode == 2 and proc.stderr.startswith("error: nothing to plot: score with scales")
    proc = _run("report", str(out), "--plot", str(tmp_path / "x.pdf"))
    assert proc.returncode == 2 and "give a .png or .svg file" in proc.stderr


@pytest.mark.e2e
def test_forest_plot_of_two_runs_as_png_and_svg(tmp_path):
    """report --plot: every metric with its interval, a row per model × method, PNG or SVG
    by the suffix, the same bytes for the same runs."""
    tests = [{"input": "1\n1 5\n", "output": "5\n"}, {"input": "2\n1 3\n1 7\n", "output": "7\n"}]
    runs = []
    for name, answer in (("a", tests[:1]), ("b", tests)):
        rules = tmp_path / f"{name}.jsonl"
        rules.write_text(json.dumps({"match": "", "response": json.dumps(answer)}) + "\n")
        out = tmp_path / name
        done = _run("run", "--method", "crux", "--model", f"scripted:{rules}", "--problems", "zm01,zm04,zm06",
                    "--out", str(out))
        assert done.returncode == 0, done.stderr
        runs.append(str(out))
    svg, svg2, png = tmp_path / "f.svg", tmp_path / "g.svg", tmp_path / "f.png"
    for path in (svg, svg2, png):
        plotted = _run("report", *runs, "--plot", str(path))
        assert plotted.returncode == 0, plotted.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = svg.read_text()
    assert text.startswith("<?xml") and "<svg" in text and svg.read_bytes() == svg2.read_bytes()
    assert "CRUX (scripted:a.jsonl)" in text and "CRUX (scripted:b.jsonl)" in text and "n=3" in text
