"""The run browser in a real browser: headless Chromium (Debian's ``chromium``, driven by
Playwright from PyPI; Playwright's own browser downloads are never used) opens the site
built from a recorded run, from ``file://`` and from the loopback server, and a newcomer's
path is clicked through: summary -> a (problem, method) unit -> one LLM exchange.

Skips, saying why, where Playwright or Chromium is missing (scripts/install.sh installs
both). ``TCZOO_SCREENSHOTS=DIR`` also saves the pages' screenshots there (docs/img).
"""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from test_view import HOSTILE, add_escapes, record_run, tczoo

pytestmark = pytest.mark.e2e  # a real browser

# Chromium on a machine without a network: no first-run, sync, component updates or QUIC
# probes (each floods refused connections); --no-sandbox because CI runs as root.
# Playwright gives every launch a fresh temporary profile (--user-data-dir).
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_path() -> str | None:
    for candidate in (os.environ.get("TCZOO_CHROMIUM"), "chromium", "chromium-browser"):
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    return None


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install 'tczoo[dev]')")
    path = chromium_path()
    if path is None:
        pytest.skip("Chromium is not installed (apt-get install chromium, or set TCZOO_CHROMIUM)")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("browser")
    run = record_run(tmp, "demo-run", methods="crux,ht")
    add_escapes(run)
    out = tmp / "site"
    proc = tczoo("view", run, "--out", out)
    assert proc.returncode == 0, proc.stderr
    return out


class Page:
    """A page that fails the test on any script error, dialog or request off the site."""

    def __init__(self, browser, base: str):
        self.page = browser.new_page(viewport={"width": 1300, "height": 900})
        self.problems: list[str] = []
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("console", lambda m: m.type == "error" and self.problems.append(f"console: {m.text}"))
        self.page.on("dialog", lambda d: (self.problems.append(f"dialog: {d.message}"), d.dismiss()))
        self.page.on("request", lambda r: r.url.startswith(base) or self.problems.append(f"request: {r.url}"))

    def shot(self, name: str) -> None:
        folder = os.environ.get("TCZOO_SCREENSHOTS")
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=False)


def walk_to_an_exchange(page: Page, url: str) -> None:
    p = page.page
    p.goto(url)
    p.wait_for_selector(".run.card")
    assert "TC-Bench HackRate" in p.inner_text(".run.card")
    assert "llm:no_rule" in p.inner_text(".run.card")  # failures by reason, on the summary
    page.shot("summary")
    clicks = 0
    # click 1: CRUX on zm04, from the problems x methods grid
    row = p.locator("table.matrix-grid tr", has_text="zm04-ribbon-pieces")
    row.locator("a.chip").first.click()
    clicks += 1
    p.wait_for_selector("h1:has-text('crux on zm04-ribbon-pieces')")
    verdicts = p.locator("table.verdicts")
    assert verdicts.locator(".v-wa").count() >= 1 and verdicts.locator(".v-ac").count() >= 5
    assert p.locator("table.verdicts tbody tr").first.inner_text().startswith("validity")
    # the hostile test input is shown as text, not markup
    assert "<script>window.PWNED=3</script>" in p.inner_text("table.tests")
    page.shot("unit")
    # click 2: its first LLM exchange
    p.locator("a.xlink").first.click()
    clicks += 1
    p.wait_for_selector("h1:has-text('LLM exchange 1')")
    text = p.inner_text("main")
    assert "Ribbon" in text and "SYSTEM" in text.upper()
    assert HOSTILE.replace("\u0000", "\\x00").strip() in text
    assert "\\udcff" in text  # a lone surrogate, shown as an escape
    assert "show all (" in text  # the 300,000-character line is folded
    page.shot("exchange")
    assert clicks <= 3
    assert p.evaluate("window.PWNED === undefined"), "a model answer ran as script"
    assert p.locator("main img").count() == 0  # the <img onerror> in the answer never became an element


def test_summary_to_exchange_from_file_url(browser, site):
    page = Page(browser, "file://")
    walk_to_an_exchange(page, (site / "index.html").resolve().as_uri())
    assert page.problems == []


def test_filters_and_run_page_from_the_loopback_server(browser, site):
    from tczoo.view.serve import server

    httpd = server(site, 0)
    port = httpd.server_address[1]
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{port}/"
    try:
        page = Page(browser, base)
        walk_to_an_exchange(page, base + "index.html")
        p = page.page
        # filter by method, then by failure reason: only HT's units failed its calls
        p.goto(base + "index.html#/")
        p.wait_for_selector("table.matrix-grid")
        p.select_option("select[aria-label='method filter']", "ht")
        p.wait_for_function("() => document.querySelector('table.matrix-grid thead').innerText.indexOf('crux') < 0")
        p.select_option("select[aria-label='method filter']", "")
        p.wait_for_function("() => document.querySelector('table.matrix-grid thead').innerText.indexOf('crux') >= 0")
        p.select_option("select[aria-label='failure filter']", "llm:no_rule")
        p.wait_for_function("() => document.querySelector('.count').innerText.startsWith('2 problems, 2 units')")
        p.fill("input[type=search]", "zm04")
        p.press("input[type=search]", "Enter")
        p.wait_for_function("() => document.querySelector('.count').innerText.startsWith('1 problems, 1 units')")
        # a unit with failures: stage, reason and detail on screen
        p.locator("table.matrix-grid a.chip").first.click()
        p.wait_for_selector("h1:has-text('ht on zm04-ribbon-pieces')")
        assert "no_rule" in p.inner_text("table.failures")
        page.shot("failures")
        # the run page: configuration, totals, failures by reason
        p.locator("header nav a", has_text="run: demo-run").click()
        p.wait_for_selector("h1:has-text('Run demo-run')")
        text = p.inner_text("main")
        for needle in ("Totals", "Failures by stage and reason", "no_rule", "Configuration", "zoo-mini", "Provenance"):
            assert needle in text, needle
        page.shot("run")
        assert page.problems == []
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_moved_data_file_is_reported_on_the_page(browser, site, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(site, broken)
    for chunk in (broken / "data" / "r0").glob("*.js"):
        chunk.unlink()
    page = Page(browser, "file://")
    page.page.goto((broken / "index.html").resolve().as_uri() + "#/p/0")
    page.page.wait_for_selector("p.error")
    assert "cannot load data/r0/p" in page.page.inner_text("p.error")


def test_a_comparison_opens_on_its_models_by_methods_matrix(browser, grid_dir, tmp_path):
    """tczoo view GRID: the summary is one models × methods matrix (not one card per run):
    each cell the headline metric as tczoo report prints it, coloured on a scale when it is
    a percentage, 'failed' where every generation failed, and its units as links; a
    failed unit says failed with its reason, never 'no tests'; one click opens a unit."""
    site = tmp_path / "site"
    proc = tczoo("view", grid_dir["dir"], "--out", site)
    assert proc.returncode == 0, proc.stderr
    page = Page(browser, "file://")
    p = page.page
    p.goto((site / "index.html").resolve().as_uri())
    p.wait_for_selector("table.comparison-matrix")
    assert p.inner_text("h1") == "Comparison cmp"
    assert p.locator(".run.card").count() == 0  # the runs are in the matrix, not in cards beside it
    head = p.inner_text("table.comparison-matrix thead")
    assert "crux" in head and "lcb" in head and "hackrate: HR" in head
    rows = p.locator("table.comparison-matrix tbody tr")
    assert rows.count() == 2
    good, down = rows.nth(0), rows.nth(1)
    assert good.locator("th").inner_text() == "scripted:good.jsonl"
    assert down.locator("th").get_attribute("title") == grid_dir["down"]  # the full model string on hover
    value = good.locator("td").first.locator(".value")
    assert float(value.inner_text()) >= 0 and "heat-" in value.get_attribute("class")
    assert down.locator("td").first.locator(".value").inner_text() == "failed"
    failed_chip = down.locator("td").first.locator("a.chip")
    assert failed_chip.inner_text() == "zm01 failed (llm:no_rule)" and "failed" in failed_chip.get_attribute("class")
    page.shot("grid")
    good.locator("td").first.locator("a.chip").click()
    p.wait_for_selector("h1:has-text('crux on zm01-commission-deadlines')")
    assert p.locator("table.verdicts .v-ac").count() >= 1
    assert page.problems == []


def test_a_comparison_shows_its_forest_plot(browser, tmp_path):
    """tczoo view GRID with intervals: below the matrix, a forest plot with one row per
    model × method that has one (point and interval as SVG elements, n at the right), the
    numbers those of the matrix cells; nothing runs that the page did not build."""
    import json as _json

    answers = {"a": [{"input": "1\n1 5\n", "output": "5\n"}],
               "b": [{"input": "2\n1 3\n1 7\n", "output": "7\n"}, {"input": "1\n1 5\n", "output": "5\n"}]}
    models = []
    for name, tests in answers.items():
        rules = tmp_path / f"{name}.jsonl"
        rules.write_text(_json.dumps({"match": "", "response": _json.dumps(tests)}) + "\n")
        models.append(f"scripted:{rules}")
    grid = tmp_path / "cmp"
    made = tczoo("compare", "--methods", "crux", "--models", ",".join(models), "--problems", "zm01,zm04,zm06",
                 "--out", grid, "-f", "json")
    assert made.returncode == 0, made.stderr[-3000:]
    cells = {r["model"]: r["crux"] for r in _json.loads(made.stdout)[0]["rows"]}
    site = tmp_path / "site"
    assert tczoo("view", grid, "--out", site).returncode == 0
    page = Page(browser, "file://")
    p = page.page
    p.goto((site / "index.html").resolve().as_uri())
    p.wait_for_selector("svg.forest")
    with_interval = [m for m in models if cells[m].get("low") is not None]
    assert with_interval, cells  # three problems: at least one cell has an interval to draw
    rows = p.locator("svg.forest g.forest-row")
    assert rows.count() == len(with_interval)
    labels = [rows.nth(i).locator("text.forest-label").text_content() for i in range(rows.count())]
    assert labels == [f"crux (scripted:{Path(m.split(':', 1)[1]).name})" for m in with_interval]
    assert [rows.nth(i).locator("text.forest-n").text_content() for i in range(rows.count())] == ["n=3"] * len(labels)
    ci = rows.first.locator("line.forest-ci")
    assert float(ci.get_attribute("x2")) >= float(ci.get_attribute("x1"))
    page.shot("forest")
    assert page.problems == []
