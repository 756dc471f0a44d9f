"""The agreement runner's tables, from score records alone (no sandbox).

Averaging follows each metric's paper (docs/agreement.md):

- macro — per problem (the mean of its suites, when a method made several), then the
  mean over the problems where the metric is defined: TPR and TNR (CodeContests+,
  CodeContests-O), DR and VAcc, DR@k and VAcc@k (SAGA), Fault Coverage@N (TestCase-Eval);
  Avg = (TPR + TNR) / 2 of those means (CodeContests-O);
- micro — pooled over every judged submission of every suite: FPR, FNR and
  consistency (AutoCode), precision and recall (HardTests), Fault Exposure over every
  target (TestCase-Eval's Task 2).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from tczoo.report import NO_VALID
from tczoo.runner import Table
from tczoo.schema import ScoreRecord

CATEGORY_COLUMNS = ("WA", "TLE", "RE", "MLE")


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _pct(num: float, den: float) -> float | None:
    return 100.0 * num / den if den else None


def macro(items: list[tuple[str, dict[str, float]]], key: str) -> float | None:
    """Per problem the mean of its suites' values, then the mean over problems."""
    by_problem: dict[str, list[float]] = defaultdict(list)
    for pid, m in items:
        if key in m:
            by_problem[pid].append(m[key])
    return _mean([sum(v) / len(v) for v in by_problem.values()])


def aggregate(items: list[tuple[str, dict[str, float]]], coverage: list[int], at: list[int] = ()) -> dict[str, Any]:
    """The row values over (problem id, suite metrics) items."""
    total = {k: sum(m.get(k, 0.0) for _, m in items) for k in ("tp", "fn", "tn", "fp", "exposed", "exposure_n")}
    tp, fn, tn, fp = total["tp"], total["fn"], total["tn"], total["fp"]
    tpr, tnr = macro(items, "tpr"), macro(items, "tnr")
    row: dict[str, Any] = {
        "problems": len({pid for pid, _ in items}), "suites": len(items),
        "tests/suite": _mean([m["n_tests"] for _, m in items if "n_tests" in m]),
        "TPR": tpr, "TNR": tnr, "Avg": (tpr + tnr) / 2 if tpr is not None and tnr is not None else None,
        "FPR": _pct(fp, fp + tn), "FNR": _pct(fn, fn + tp), "Consistency": _pct(tp + tn, tp + tn + fp + fn),
        "Precision": _pct(tp, tp + fp), "Recall": _pct(tp, tp + fn),
        "DR": macro(items, "dr"), "VAcc": macro(items, "vacc"),
    }
    for k in at:
        row[f"DR@{k}"] = macro(items, f"cov@{k}")  # DR on the first k tests: Coverage@k by another name
        row[f"VAcc@{k}"] = macro(items, f"vacc@{k}")
    for n in coverage:
        row[f"Cov@{n}"] = macro(items, f"cov@{n}")
    if total["exposure_n"]:
        row["Exposure"] = _pct(total["exposed"], total["exposure_n"])
    return row


def summarize(scores: list[ScoreRecord]) -> list[Table]:
    scores = [s for s in scores if "failed" in s.detail or s.n_valid]
    if not scores:
        return []
    coverage = sorted({int(n) for s in scores for n in s.detail.get("coverage", [])})
    at = sorted({int(k) for s in scores for k in s.detail.get("at", [])})
    groups: dict[tuple[str, str], list[ScoreRecord]] = defaultdict(list)
    reference: dict[str, dict[str, Any]] = {}
    for s in scores:
        groups[(s.model, s.method)].append(s)
        ref = s.detail.get("reference")
        if isinstance(ref, dict):
            reference.setdefault(s.problem_id, ref)
    exposure = any(s.detail.get("target") for s in scores)
    metric_cols = ["TPR", "TNR", "Avg", "FPR", "FNR", "Consistency", "Precision", "Recall", "DR", "VAcc",
                   *[c for k in at for c in (f"DR@{k}", f"VAcc@{k}")],
                   *[f"Cov@{n}" for n in coverage], *(["Exposure"] if exposure else [])]
    rows, counts = [], []
    cannot_run: set[tuple[str, str]] = set()
    undetermined = 0
    failed_suites: dict[tuple[str, str], int] = defaultdict(int)
    vacuous: set[str] = set()
    for (model, method), recs in sorted(groups.items()):
        ok = [s for s in recs if "failed" not in s.detail]
        failed_suites[(model, method)] = len(recs) - len(ok)
        items = [(s.problem_id, s.metrics) for s in ok]
        for s in ok:
            for sub in s.detail.get("submissions", []):
                if sub.get("status") == "cannot_run":
                    cannot_run.add((s.problem_id, sub.get("name", "?")))
            undetermined += int(s.metrics.get("n_undetermined", 0))
            if s.detail.get("vacuous_soundness"):
                vacuous.add(s.problem_id)
        if items:
            row = {"model": model, "method": method, **aggregate(items, coverage, at)}
        else:
            row = {"model": model, "method": method, "problems": len({s.problem_id for s in recs}), "suites": 0,
                   "tests/suite": _mean([float(s.metrics.get("n_tests", 0.0)) for s in recs]),
                   **{c: NO_VALID for c in metric_cols}}
        rows.append(row)
        counts.append(_counts(model, method, items, failed_suites[(model, method)], _judged(recs)))
    ref_items = [(pid, r["metrics"]) for pid, r in sorted(reference.items()) if "metrics" in r]
    ref_failed = sorted(pid for pid, r in reference.items() if "metrics" not in r)
    if ref_items:
        rows.append({"model": REFERENCE_MODEL, "method": REFERENCE, **aggregate(ref_items, coverage, at),
                     "tests/suite": _mean([float(r["tests"]) for _, r in sorted(reference.items())
                                           if "metrics" in r and isinstance(r.get("tests"), int)])})
        counts.append({**_counts(REFERENCE_MODEL, REFERENCE, ref_items, len(ref_failed), "all"),
                       "tests/suite": rows[-1]["tests/suite"]})
    notes = _notes(scores, coverage, at, cannot_run, undetermined, failed_suites, vacuous, ref_failed)
    tables = [Table(title="The suite as a judge: agreement with the labelled submissions (%)",
                    columns=["model", "method", "problems", "suites", "tests/suite", *metric_cols], rows=rows,
                    notes=notes),
              Table(title="Labelled submissions judged (pooled counts)",
                    columns=["model", "method", "suites", "tests/suite", "judged", "accepted judged", "wrong judged",
                             "TP", "FN", "TN", "FP", "usable tests", "sound tests", "cannot run", "undetermined",
                             "failed suites"],
                    rows=counts,
                    notes=["tests/suite: the mean number of tests of a scored suite (every test it holds, usable or "
                           "not). judged: which labelled submissions judged the suites — all (the method's paper "
                           "judges the submissions its method was shown: SAGA, CodeContests-O) or held out (those "
                           "the task showed the method are left out); see the runner's judged option",
                           "TP: accepted and accepted by the suite; FN: accepted, rejected; TN: wrong, rejected; "
                           "FP: wrong, accepted (positive = accepted). usable / sound tests: summed over suites. "
                           "cannot run and undetermined submissions are in no count above"])]
    if exposure:
        tables.append(_exposure_table(scores))
    beyond = _beyond_table(scores)
    if beyond is not None:
        tables.append(beyond)
    augmented = _base_table(scores)
    if augmented is not None:
        tables.append(augmented)
    return tables


def _base_table(scores: list[ScoreRecord]) -> Table | None:
    """For a method that augments a suite of its own (``BASE_TEST``: CodeHacker's hacks on
    top of its stress tests): the base tests' TPR/TNR beside the whole suite's, macro as
    in the main table, over the suites that carry both; None when no record does."""
    groups: dict[tuple[str, str], list[ScoreRecord]] = defaultdict(list)
    for s in scores:
        if "failed" not in s.detail and "tnr_base" in s.metrics:
            groups[(s.model, s.method)].append(s)
    if not groups:
        return None
    rows = []
    for (model, method), recs in sorted(groups.items()):
        items = [(s.problem_id, s.metrics) for s in recs]
        tnr, base = macro(items, "tnr"), macro(items, "tnr_base")
        rows.append({"model": model, "method": method, "suites": len(recs),
                     "base tests/suite": _mean([float(s.detail.get("base_tests", 0)) for s in recs]),
                     "tests/suite": _mean([m["n_tests"] for _, m in items if "n_tests" in m]),
                     "TPR base": macro(items, "tpr_base"), "TPR": macro(items, "tpr"),
                     "TNR base": base, "TNR": tnr,
                     "TNR gain": tnr - base if tnr is not None and base is not None else None})
    return Table(title="What the added tests change: the base suite against the whole suite (%)",
                 columns=["model", "method", "suites", "base tests/suite", "tests/suite", "TPR base", "TPR",
                          "TNR base", "TNR", "TNR gain"], rows=rows,
                 notes=["base: the tests the method started from (CodeHacker: its stress tests before the first "
                        "hack), judged alone on the same submissions; TNR gain = TNR - TNR base, macro over "
                        "problems (the paper's measure: how much the hacks raise the TNR)"])


REFERENCE, REFERENCE_MODEL = "jury tests", "(reference)"
JUDGED = {"all": "all", "held_out": "held out"}


def _judged(recs: list[ScoreRecord]) -> str:
    """Which submissions judged these records' suites, in words (records made before
    the ``judged`` option left the shown ones out)."""
    seen = sorted({JUDGED.get(str(s.detail.get("judged", "held_out")), "?") for s in recs})
    return " / ".join(seen)


def _counts(model: str, method: str, items: list[tuple[str, dict[str, float]]], failed: int,
            judged: str = "") -> dict[str, Any]:
    def tot(key: str) -> int:
        return int(sum(m.get(key, 0.0) for _, m in items))

    return {"model": model, "method": method, "suites": len(items),
            "tests/suite": _mean([m["n_tests"] for _, m in items if "n_tests" in m]), "judged": judged,
            "accepted judged": tot("tp") + tot("fn"), "wrong judged": tot("tn") + tot("fp"),
            "TP": tot("tp"), "FN": tot("fn"), "TN": tot("tn"), "FP": tot("fp"),
            "usable tests": tot("n_tests_usable"), "sound tests": tot("n_sound"),
            "cannot run": tot("n_cannot_run"), "undetermined": tot("n_undetermined"), "failed suites": failed}


def _notes(scores, coverage, at, cannot_run, undetermined, failed_suites, vacuous, ref_failed) -> list[str]:
    detect = {s.detail.get("detect_on", "sound") for s in scores}
    cov = ", ".join(f"Cov@{n}" for n in coverage)
    ats = "".join(f", DR@{k}, VAcc@{k}" for k in at)
    notes = [
        f"macro (per problem, then the mean over problems): TPR, TNR (CodeContests+, CodeContests-O), DR, VAcc"
        f"{ats} (SAGA), {cov} (TestCase-Eval); Avg = (TPR + TNR) / 2 (CodeContests-O); micro (pooled submissions): "
        f"FPR, FNR, Consistency (AutoCode), Precision, Recall (HardTests)"
        + (", Exposure (TestCase-Eval)" if any(s.detail.get("target") for s in scores) else "")
        + ". Positive = accepted, so FPR = wrong submissions the suite accepts; FPR is not 100 - TNR when "
          "problems differ in size",
        "DR, VAcc, Cov@N and Exposure count a wrong submission as detected only by a test every accepted "
        "submission passes (a sound test)" if detect == {"sound"} else
        "DR, VAcc, Cov@N and Exposure count detection by every usable test (detect_on: all)",
        "an empty cell: no submission of that label, or no target, to compute it on",
        "tests/suite: the mean number of tests of the scored suites (of the golden tests on the reference row)"
        + (f"; DR@k and VAcc@k judge with a suite's first k tests only (all of them when it has fewer): SAGA "
           f"reports both at k = {', '.join(str(k) for k in at)}" if at else ""),
    ]
    if cannot_run:
        names = ", ".join(f"{pid}:{name}" for pid, name in sorted(cannot_run)[:6])
        notes.append(f"{len(cannot_run)} submission(s) cannot run here and are in no count: {names}"
                     + (" ..." if len(cannot_run) > 6 else ""))
    if undetermined:
        notes.append(f"{undetermined} submission verdict(s) undetermined (a sandbox failure on a test they depend "
                     f"on): left out of every count")
    bad = {k: v for k, v in failed_suites.items() if v}
    if bad:
        notes.append("suites without a single usable test (failed, never a number): "
                     + ", ".join(f"{method} ({model}): {n}" for (model, method), n in sorted(bad.items())))
    if vacuous:
        notes.append(f"no runnable accepted submission on {', '.join(sorted(vacuous)[:5])}: every usable test "
                     f"counts as sound there")
    if ref_failed:
        notes.append(f"no reference row for {', '.join(ref_failed[:5])}: no golden tests, or none usable")
    scoring = sorted({s.problem_id for s in scores if s.detail.get("scoring")})
    if scoring:
        notes.append(f"{', '.join(scoring[:5])}: {next(s.detail['scoring'] for s in scores if s.detail.get('scoring'))}")
    if any(s.detail.get("reference") for s in scores):
        notes.append(f"'{REFERENCE}' {REFERENCE_MODEL}: the problems' golden tests judged by the same code path "
                     f"(a jury's own tests should accept every accepted submission: TPR 100)")
    return notes


def _exposure_table(scores: list[ScoreRecord]) -> Table:
    per: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    sizes: dict[tuple[str, str], list[float]] = defaultdict(list)
    for s in scores:
        target = s.detail.get("target")
        exposed = s.detail.get("exposed")
        if not target or exposed is None:
            continue
        category = next((sub.get("category") for sub in s.detail.get("submissions", [])
                         if sub.get("name") == target), None) or "unknown"
        key = category if category in CATEGORY_COLUMNS else "other"
        sizes[(s.model, s.method)].append(float(s.metrics.get("n_tests", 0.0)))
        for bucket in ("all", key):
            per[(s.model, s.method)][bucket][0] += int(bool(exposed))
            per[(s.model, s.method)][bucket][1] += 1
    rows = []
    for (model, method), buckets in sorted(per.items()):
        row: dict[str, Any] = {"model": model, "method": method, "targets": buckets["all"][1],
                               "tests/suite": _mean(sizes[(model, method)]),
                               "exposed": buckets["all"][0], "Exposure": _pct(*buckets["all"])}
        for c in (*CATEGORY_COLUMNS, "other"):
            if c in buckets:
                row[c] = _pct(*buckets[c])
        rows.append(row)
    return Table(title="Fault Exposure by the target's failure (TestCase-Eval Task 2; %)",
                 columns=["model", "method", "targets", "tests/suite", "exposed", "Exposure", *CATEGORY_COLUMNS,
                          "other"], rows=rows,
                 notes=["a target is exposed when one of the first exposure_tests tests of the suite written for it "
                        "is sound and rejects it; columns by the target's known verdict (WA, TLE, RE, MLE; other: "
                        "unknown or several)"])


def _beyond_table(scores: list[ScoreRecord]) -> Table | None:
    """What a suite rejects that the jury's own tests accept (EvalPlus's measure: the
    submissions a grown suite catches beyond the original tests), pooled over suites;
    None when no record carries the reference row's verdicts."""
    per: dict[tuple[str, str], dict[str, int]] = defaultdict(
        lambda: {"suites": 0, "tests": 0, "accepted by jury tests": 0, "rejected": 0, "wrong": 0, "accepted": 0})
    jury_tests: dict[str, int] = {}  # problem -> its golden tests
    for s in scores:
        ref_row = s.detail.get("reference") or {}
        ref = ref_row.get("submissions")
        subs = s.detail.get("submissions")
        if "failed" in s.detail or not isinstance(ref, dict) or not isinstance(subs, list):
            continue
        if isinstance(ref_row.get("tests"), int):
            jury_tests[s.problem_id] = ref_row["tests"]
        row = per[(s.model, s.method)]
        row["suites"] += 1
        row["tests"] += int(s.metrics.get("n_tests", 0))
        for sub in subs:
            verdict = ref.get(sub.get("name"))
            if not verdict or verdict[0] != "accept" or sub.get("status") not in ("accept", "reject"):
                continue
            row["accepted by jury tests"] += 1
            if sub["status"] == "reject":
                row["rejected"] += 1
                row["wrong" if sub.get("label") == "wrong" else "accepted"] += 1
    if not per:
        return None
    rows = [{"model": model, "method": method, "suites": c["suites"],
             "tests/suite": c["tests"] / c["suites"] if c["suites"] else None,
             "accepted by jury tests": c["accepted by jury tests"], "rejected by the suite": c["rejected"],
             "labelled wrong": c["wrong"], "labelled accepted": c["accepted"],
             "rejected %": _pct(c["rejected"], c["accepted by jury tests"])}
            for (model, method), c in sorted(per.items())]
    if jury_tests:
        rows.append({"model": REFERENCE_MODEL, "method": REFERENCE, "suites": len(jury_tests),
                     "tests/suite": sum(jury_tests.values()) / len(jury_tests)})
    return Table(title="Beyond the jury's tests: submissions the golden tests accept and the suite rejects",
                 columns=["model", "method", "suites", "tests/suite", "accepted by jury tests",
                          "rejected by the suite", "labelled wrong", "labelled accepted", "rejected %"], rows=rows,
                 notes=["tests/suite: the mean size of the suites (of the problems' golden tests on the reference row); "
                        "pooled over suites: every judged submission the problem's golden tests accept (the "
                        "reference row), and those the suite rejects (EvalPlus: the wrong code a grown suite catches "
                        "that the original tests let through; its pass@k drop). Labelled wrong: the label came from "
                        "elsewhere (a jury's folder) and the golden tests missed it. Labelled accepted: candidates "
                        "labelled by the golden tests themselves (tczoo candidates), so every one the suite rejects "
                        "is either wrong beyond those tests or rejected on an input outside the problem's domain"])

