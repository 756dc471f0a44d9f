"""The run browser: ``tczoo view`` builds a static site from a recorded run, ``tczoo show``
prints the same drill-down; every text a model or program wrote stays text.

The run is recorded by ``tczoo run`` with a scripted model whose answer is hostile
(``<script>``, ``</textarea>``, NUL, a 300,000-character line); the recorded files then
get what a run may also hold but main's writer cannot produce yet (lone surrogates,
terminal escape sequences). The browser test (tests/kernel/test_view_browser.py) opens the
site in Chromium."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

HOSTILE = "<script>window.PWNED=1</script></textarea><img src=x onerror=\"window.PWNED=2\"> \u0000 "
HUGE = "x" * 300_000
ESCAPES = "\udcff \x1b]0;pwned\x07\x1b[2J"


def tczoo(*args, timeout=300, env=None):
    return subprocess.run([sys.executable, "-m", "tczoo.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def record_run(tmp: Path, name: str = "run", methods: str = "crux") -> Path:
    """A real recorded run: METHODS on zm04 and zm01 through ``tczoo run`` with a scripted
    model that answers CRUX's prompt (any other method's calls fail: no rule matches)."""
    tests = [{"input": f"1 {k}\n{k}\n", "output": "1\n"} for k in range(1, 6)]
    # first: the problem's input validator rejects it, so the tests scored are t1..t5
    tests.insert(0, {"input": "<script>window.PWNED=3</script>\n", "output": "</textarea>\u0000"})
    rules = tmp / "rules.jsonl"
    answer = f"Here they are. {HOSTILE}\n{HUGE}\n```json\n{json.dumps(tests)}\n```"
    rules.write_text(json.dumps({"match": "test cases", "response": answer}) + "\n")
    out = tmp / name
    proc = tczoo("run", "--method", methods, "--model", f"scripted:{rules}", "--problems", "zm04,zm01", "--out", out)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out


def add_escapes(run: Path) -> None:
    """Lone surrogates and terminal escapes in the recorded answers and one test input."""
    lines = [json.loads(x) for x in (run / "exchanges.jsonl").read_text().splitlines()]
    for x in lines:
        x["text"] = ESCAPES + x["text"]
    (run / "exchanges.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    gens = [json.loads(x) for x in (run / "generations.jsonl").read_text().splitlines()]
    gens[0]["suite"]["tests"][0]["input"] += ESCAPES
    (run / "generations.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gens))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    run = record_run(tmp_path_factory.mktemp("view"))
    add_escapes(run)
    return run


@pytest.fixture(scope="module")
def site(run_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "site"
    proc = tczoo("view", run_dir, "--out", out, "--format", "json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert result["problems"] == 2 and result["units"] == 2
    return out


def payload(path: Path, call: str):
    """The JSON a data file hands to TCZOO.<call>(...)."""
    text = path.read_text(encoding="ascii")  # pure ASCII whatever it carries
    assert text.startswith(f"TCZOO.{call}(") and text.endswith(");\n")
    body = text[len(f"TCZOO.{call}("):-3]
    if call == "chunk":
        name, _, body = body.partition(",")
        return json.loads(name), json.loads(body)
    return json.loads(body)


def test_the_site_is_self_contained(site):
    html = (site / "index.html").read_text()
    assert "http://" not in html and "https://" not in html and "<script>" not in html.replace("<script src", "")
    assert "Content-Security-Policy" in html and "script-src 'self'" in html
    for asset in ("app.js", "style.css"):
        # the SVG namespace is a name createElementNS takes (the forest plot), never fetched
        text = (site / "assets" / asset).read_text().replace('"http://www.w3.org/2000/svg"', "")
        assert "http://" not in text and "https://" not in text
    js = (site / "assets" / "app.js").read_text()
    for sink in (".innerHTML", ".outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in js, sink


def test_the_index_holds_the_report_tables_totals_and_units(site, run_dir):
    index = payload(site / "data" / "index.js", "index")
    [run] = index["runs"]
    report = json.loads(tczoo("report", run_dir, "--format", "json").stdout)
    # the same tables tczoo report prints, cell for cell
    assert [t["title"] for t in run["tables"]] == [t["title"] for t in report]
    # the page shows each interval in a column of its own; JSON puts it in the row's "intervals"
    assert [c for c in run["tables"][0]["columns"] if not c.endswith(" 95% CI")] == report[0]["columns"]
    assert "HR 95% CI" in run["tables"][0]["columns"]
    assert run["tables"][0]["rows"][0][run["tables"][0]["columns"].index("method")] == "CRUX"
    totals = run["totals"]
    assert totals["units"] == 2 and totals["calls"] == len((run_dir / "exchanges.jsonl").read_text().splitlines())
    assert run["config"]["methods"] == ["crux"] and run["provenance"]["tczoo_version"]
    assert {u["problem"] for u in index["units"]} == {"zm04-ribbon-pieces", "zm01-commission-deadlines"}
    zm04 = next(u for u in index["units"] if u["problem"].startswith("zm04"))
    assert zm04["headline"] == "hack_rate" and zm04["tests"] == 6 and zm04["exchanges"] >= 1


def test_a_problem_chunk_holds_tests_verdicts_and_exchanges_as_text(site, run_dir):
    index = payload(site / "data" / "index.js", "index")
    p = index["problems"].index("zm04-ribbon-pieces")
    name, chunk = payload(site / "data" / "r0" / f"p{p}.js", "chunk")
    assert name == f"r0/p{p}"
    [unit] = chunk["units"]
    [score] = unit["scores"]
    [matrix] = score["matrices"]
    labels = [r["label"] for r in matrix["rows"]]
    assert labels[0] == "validity" and len(labels) > 1
    validity = [c[0] for c in matrix["rows"][0]["cells"]]
    assert validity[-1] == "invalid" and validity[:5] == ["valid"] * 5
    # columns are positions as generated: the rejected input is t0, shown last with the
    # validator's reason; the five the input check kept are t1..t5 (in the scorer's order)
    assert matrix["tests"][-1] == 0 and sorted(matrix["tests"][:5]) == [1, 2, 3, 4, 5]
    assert "input validator" in matrix["rows"][0]["cells"][-1][1]
    # a wrong code: AC until its first failure, the verdict there, not run after
    for row in matrix["rows"][1:]:
        codes = [c[0] for c in row["cells"][:5]]
        if "WA" in codes:
            k = codes.index("WA")
            assert codes[:k] == ["AC"] * k and set(codes[k + 1:]) <= {"-"}
    x = unit["exchanges"][0]
    answer = x["answer"]
    # clipped, with the full length recorded
    assert answer["of"] > 300_000 and len(answer["clip"]) == 100_000
    assert HOSTILE.replace("\u0000", "\\x00") in answer["clip"]
    # lone surrogates and escapes arrive as visible escapes, not as raw characters
    last_unit_answer = unit["exchanges"][-1]["answer"]
    assert isinstance(last_unit_answer, dict)
    assert x["messages"][0]["role"] == "system" and "Ribbon" in x["messages"][1]["content"]
    assert x["seconds"] is not None and x["cached"] is False
    assert unit["tests"][0]["input"].startswith("<script>")


def test_escapes_and_surrogates_become_visible_text(run_dir, tmp_path):
    from tczoo.view.data import RunData, safe

    assert safe("a\udcffb\x1b[2J\x00") == "a\\udcffb\\x1b[2J\\x00"
    data = RunData(run_dir, max_chars=1_000_000)
    unit = next(u for u in data.all_units() if u.generation.suite.tests and
                ESCAPES in u.generation.suite.tests[0].input)
    detail = safe(data.unit_detail(unit), data.max_chars)
    text = json.dumps(detail, ensure_ascii=False)
    text.encode("utf-8")  # no lone surrogate left anywhere
    assert "\x1b" not in text and "\\u001b" not in text
    assert "\\\\udcff \\\\x1b]0;pwned\\\\x07" in text


def test_rebuilding_in_place_and_refusing_foreign_folders(site, run_dir, tmp_path):
    stale = site / "data" / "r0" / "p999.js"
    stale.write_text("stale")
    assert tczoo("view", run_dir, "--out", site).returncode == 0
    assert not stale.exists()
    foreign = tmp_path / "home"
    foreign.mkdir()
    (foreign / "precious.txt").write_text("keep me")
    proc = tczoo("view", run_dir, "--out", foreign)
    assert proc.returncode == 2 and proc.stderr.startswith("error: ") and "not a tczoo view site" in proc.stderr
    assert (foreign / "precious.txt").read_text() == "keep me"
    (tmp_path / "file").write_text("")
    proc = tczoo("view", run_dir, "--out", tmp_path / "file")
    assert proc.returncode == 2 and "is a file" in proc.stderr
    proc = tczoo("view", tmp_path / "missing")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "not a tczoo run directory" in proc.stderr


def test_several_runs_side_by_side(run_dir, tmp_path):
    import shutil

    other = tmp_path / "second"
    shutil.copytree(run_dir, other, ignore=shutil.ignore_patterns("view"))
    out = tmp_path / "both"
    proc = tczoo("view", run_dir, other, "--out", out, "-f", "json")
    assert proc.returncode == 0, proc.stderr
    index = payload(out / "data" / "index.js", "index")
    assert [r["name"] for r in index["runs"]] == [run_dir.name, "second"]
    assert {u["r"] for u in index["units"]} == {0, 1}
    assert len(index["problems"]) == 2 and (out / "data" / "r1").is_dir()


def test_plots_are_drawn_when_the_tables_allow(tmp_path):
    from tczoo.runner import Table
    from tczoo.view.plots import draw_plots

    tables = [Table(title="hr", columns=["model", "method", "HR 1x", "HR 2x"],
                    rows=[{"model": "m$x$ <b>", "method": "CRUX", "HR 1x": 10.0, "HR 2x": 20.0}]),
              Table(title="asr", columns=["language", "model", "method", "Fast", "Slow", "R1", "R2", "R3"],
                    rows=[{"language": "C++", "model": "m", "method": "STAB", "Fast": 50.0, "Slow": 40.0,
                           "R1": 30.0, "R2": None, "R3": 10.0}])]
    plots = draw_plots(tables, tmp_path, "r0")
    assert [p.get("file") for p in plots] == ["plots/r0-scaling.svg", "plots/r0-asr.svg"], plots
    svg = (tmp_path / "r0-scaling.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<b>" not in svg and "&lt;b&gt;" in svg
    assert draw_plots([], tmp_path, "none") == []


def test_serve_binds_loopback_and_serves_the_site(site):
    from tczoo.view.serve import server

    httpd = server(site, 0)
    host, port = httpd.server_address[:2]
    assert host == "127.0.0.1"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        body = urllib.request.urlopen(f"http://127.0.0.1:{port}/data/index.js", timeout=10).read()
        assert body.startswith(b"TCZOO.index(")
    finally:
        httpd.shutdown()
        httpd.server_close()


# --------------------------------------------------------------------------- tczoo show


def test_show_run_problem_unit_and_exchange(run_dir):
    proc = tczoo("show", run_dir)
    assert proc.returncode == 0, proc.stderr
    assert "TC-Bench HackRate" in proc.stdout and "zm04-ribbon-pieces" in proc.stdout and "hack_rate" in proc.stdout
    proc = tczoo("show", run_dir, "--problem", "zm04-ribbon-pieces")
    assert proc.returncode == 0 and "crux" in proc.stdout
    proc = tczoo("show", run_dir, "--problem", "zm04-ribbon-pieces", "--method", "crux")
    assert proc.returncode == 0, proc.stderr
    for needle in ("validity and wrong codes", "LLM exchanges", "metrics (hackrate)", "n_invalid_input"):
        assert needle in proc.stdout, needle
    # the rejected input (t0) is shown invalid, with why, in the tests table
    wide = tczoo("show", run_dir, "--problem", "zm04-ribbon-pieces", "--method", "crux", env={"COLUMNS": "400"})
    [t0] = [line for line in wide.stdout.splitlines() if line.startswith("│ t0 ")]
    assert "invalid the input check rejected it, never run: input validator" in t0, t0
    proc = tczoo("show", run_dir, "--problem", "zm04-ribbon-pieces", "--method", "crux", "--exchange", "1")
    assert proc.returncode == 0, proc.stderr
    assert "<script>window.PWNED=1</script></textarea>" in proc.stdout and "Ribbon" in proc.stdout
    assert "\x1b" not in proc.stdout and "\x00" not in proc.stdout and "\\x1b]0;pwned" in proc.stdout


@pytest.mark.parametrize("args, needle", [
    (["--problem", "zm99"], "has no problem 'zm99'"),
    (["--problem", "zm04-ribbon-pieces", "--method", "nope"], "has no unit of method 'nope'"),
    (["--problem", "zm04-ribbon-pieces", "--method", "crux", "--exchange", "99"], "--exchange must be between 1 and"),
    (["--exchange", "1"], "need --problem and --method"),
])
def test_show_refuses_what_is_not_there_in_one_line(run_dir, args, needle):
    proc = tczoo("show", run_dir, *args)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith("error: ") and needle in proc.stderr and proc.stderr.count("\n") == 1


def test_the_cli_loads_no_builder_at_startup():
    code = "import sys, tczoo.cli; print(sorted(m for m in sys.modules if m.startswith(('tczoo.view', 'matplotlib'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_wheel_ships_the_assets(installed_tczoo):
    for name in ("index.html", "app.js", "style.css"):
        assert (installed_tczoo / "tczoo" / "view" / "assets" / name).is_file(), name


def test_old_records_and_unknown_runners_still_show(run_dir, tmp_path):
    """A HackRate record from before first failures were recorded shows '?' cells; a
    score from a runner not installed here costs its per-test view and the tables, not
    the site."""
    import shutil

    old = tmp_path / "old"
    shutil.copytree(run_dir, old, ignore=shutil.ignore_patterns("view"))
    scores = [json.loads(x) for x in (old / "scores.jsonl").read_text().splitlines()]
    for s in scores:
        s["detail"].pop("first_failure", None)
    # on zm01: the unit looked at below (zm04) keeps its own HackRate score (the run scores
    # its two units concurrently, so scores[0] is either)
    foreign = dict(next(s for s in scores if s["problem_id"].startswith("zm01")), runner="nosuch")
    (old / "scores.jsonl").write_text("".join(json.dumps(s) + "\n" for s in [*scores, foreign]))
    from tczoo.view.data import RunData

    data = RunData(old)
    assert data.tables == [] and "nosuch" in data.table_error
    unit = next(u for u in data.all_units() if u.problem.startswith("zm04"))
    detail = data.unit_detail(unit)
    hackrate = next(s for s in detail["scores"] if s["runner"] == "hackrate")
    codes = {c[0] for row in hackrate["matrices"][0]["rows"][1:] for c in row["cells"]}
    assert "?" in codes and "WA" not in codes
    proc = tczoo("view", old, "--out", tmp_path / "site")
    assert proc.returncode == 0, proc.stderr
    shown = tczoo("show", old)
    assert shown.returncode == 0 and "could not be made" in shown.stdout
