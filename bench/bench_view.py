"""How fast ``tczoo view`` builds and opens a large run, against reading the same run.

    python bench/bench_view.py [--problems 1000] [--methods 2] [--tests 10] [--no-browser]

Writes a synthetic run directory (N problems x M methods, each unit with T tests of
~200 bytes, two LLM exchanges of ~3 KB prompt / 2 KB answer, and a HackRate score with
per-test validity and 10 wrong codes) and a 10-problem one of the same shape. Prints:

- the time to read the run as ``tczoo report`` does (``tczoo.report.run_tables``) — the
  baseline — and the time to build the site, with their ratio;
- the site's size: the index every page loads, the largest problem file, everything;
- with Chromium and Playwright present: the time until the summary is on screen, until a
  unit page is open after a click, and until a filter has redrawn the grid, for the large
  site and, as the baseline, the small one.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tczoo.schema import (GenerationRecord, Oracle, OracleKind, Provenance, RunConfig, ScoreRecord, TestCase,
                          TestSuite, Usage)

WRONG = [f"wrong/w{i}.cpp" for i in range(10)]


def synthesize(root: Path, problems: int, methods: int, tests: int, seed: int = 0) -> Path:
    rng = random.Random(seed)
    root.mkdir(parents=True)
    names = [f"m{i}" for i in range(methods)]
    (root / "config.json").write_text(RunConfig(methods=names, model="scripted:bench", benchmark="synthetic",
                                                tczoo_version="bench").model_dump_json(indent=2))
    prompt = "Write tests for this problem.\n" + "statement text " * 200
    with (root / "generations.jsonl").open("w") as gens, (root / "scores.jsonl").open("w") as scores, \
            (root / "exchanges.jsonl").open("w") as xs:
        for p in range(problems):
            pid = f"p{p:05d}"
            for m in names:
                keys = []
                for k in range(2):
                    key = f"{pid}-{m}-{k}"
                    keys.append(key)
                    xs.write(json.dumps({"key": key, "model": "scripted:bench", "sample": k, "ok": True, "cached": False,
                                         "messages": [{"role": "system", "content": "You write tests."},
                                                      {"role": "user", "content": prompt}],
                                         "params": {"temperature": 0.0}, "text": "answer " * 300, "error": None,
                                         "reason": None, "usage": {"prompt_tokens": 800, "completion_tokens": 600},
                                         "cost_usd": 0.001, "time": 1.7e9 + p, "seconds": 1.5}) + "\n")
                suite = TestSuite(problem_id=pid, oracle=Oracle(kind=OracleKind.EXPECTED_OUTPUT),
                                  tests=[TestCase(input=" ".join(str(rng.randint(1, 10**9)) for _ in range(20)) + "\n",
                                                  output=f"{rng.randint(0, 99)}\n", origin=m) for _ in range(tests)],
                                  provenance=Provenance(method=m, model="scripted:bench", exchanges=keys,
                                                        usage=Usage(calls=2, prompt_tokens=1600, completion_tokens=1200)))
                if rng.random() < 0.1:
                    suite.fail("parse", "no_json", "the answer held no JSON list", "sample 1")
                gens.write(GenerationRecord(method=m, model="scripted:bench", problem_id=pid, suite=suite,
                                            seconds=3.0).model_dump_json() + "\n")
                valid = [rng.random() < 0.8 for _ in range(tests)]
                first = {w: [rng.randint(0, max(0, sum(valid) - 1)), "WA"] for w in WRONG if rng.random() < 0.5}
                n_valid = sum(valid)
                scores.write(ScoreRecord(
                    runner="hackrate", method=m, model="scripted:bench", problem_id=pid,
                    metrics={"pass_rate": 100.0 * n_valid / tests, "hack_rate": 100.0 * len(first) / len(WRONG),
                             "ac": 100.0 - 100.0 * len(first) / len(WRONG), "wa": 100.0 * len(first) / len(WRONG),
                             "re": 0.0, "tle": 0.0, "n_tests": float(tests), "n_valid": float(n_valid)},
                    detail={"wrong": {w: ("wa" if w in first else "ac") for w in WRONG}, "first_failure": first,
                            "tests": [{"test": i, "valid": v, "reason": "valid" if v else "wrong_output"}
                                      for i, v in enumerate(valid)],
                            "executions": 50, "executions_full": 80, "budget": tests}).model_dump_json() + "\n")
    return root


def timed(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def browser_times(site: Path) -> dict[str, float] | None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return None
    args = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"]
    out: dict[str, list[float]] = {"summary on screen": [], "unit page after a click": [], "filter redrawn": []}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=args)
        for _ in range(3):
            page = browser.new_page(viewport={"width": 1300, "height": 900})
            start = time.perf_counter()
            page.goto((site / "index.html").resolve().as_uri())
            page.wait_for_selector("table.matrix-grid tbody tr")
            out["summary on screen"].append(time.perf_counter() - start)
            start = time.perf_counter()
            page.locator("a.chip").nth(3).click()
            page.wait_for_selector("table.verdicts")
            out["unit page after a click"].append(time.perf_counter() - start)
            page.go_back()
            page.wait_for_selector("table.matrix-grid")
            start = time.perf_counter()
            page.select_option("select[aria-label='failure filter']", "*")
            page.wait_for_function("() => document.querySelector('.count').innerText.indexOf('units match') > 0 && "
                                   "location.hash.indexOf('reason') > 0")
            out["filter redrawn"].append(time.perf_counter() - start)
            page.close()
        browser.close()
    return {k: statistics.median(v) for k, v in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--problems", type=int, default=1000)
    ap.add_argument("--methods", type=int, default=2)
    ap.add_argument("--tests", type=int, default=10)
    ap.add_argument("--no-browser", action="store_true")
    args = ap.parse_args()

    from tczoo.report import run_tables
    from tczoo.view.site import build

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        big = synthesize(tmp / "big", args.problems, args.methods, args.tests)
        small = synthesize(tmp / "small", 10, args.methods, args.tests)
        print(f"synthetic run: {args.problems} problems x {args.methods} methods, {args.tests} tests per unit, "
              f"{size(big) / 1e6:.1f} MB on disk (written in {time.perf_counter() - t0:.1f} s)")
        read = timed(lambda: run_tables(big))
        built = timed(lambda: build([big], tmp / "site"), repeat=1)
        build([small], tmp / "small-site")
        print(f"read as tczoo report does: {read:.2f} s (baseline)")
        print(f"build the site:            {built:.2f} s ({built / read:.1f}x the baseline)")
        site = tmp / "site"
        chunks = sorted((site / "data" / "r0").glob("*.js"), key=lambda f: f.stat().st_size)
        print(f"site: {size(site) / 1e6:.1f} MB in {sum(1 for _ in site.rglob('*'))} files; index.js "
              f"{(site / 'data' / 'index.js').stat().st_size / 1e6:.2f} MB (every page loads it), largest problem file "
              f"{chunks[-1].stat().st_size / 1e3:.0f} KB")
        if args.no_browser:
            return
        large = browser_times(site)
        if large is None:
            print("browser timings skipped: Playwright or Chromium is missing", file=sys.stderr)
            return
        base = browser_times(tmp / "small-site")
        print("in headless Chromium (median of 3, from file://):")
        for k, v in large.items():
            print(f"  {k:25s} {v * 1000:7.0f} ms at {args.problems} problems, {base[k] * 1000:5.0f} ms at 10 "
                  f"({v / base[k]:.1f}x)")


if __name__ == "__main__":
    main()
