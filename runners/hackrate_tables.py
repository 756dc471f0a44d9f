"""HackRate score records into TC-Bench's tables (Table 1, the scaling of A.4) and into
the one-line result of ``tczoo score --tests``.

Averages follow the reference scripts: PassRate over the problems with at least one
generated test (``load_data_filter.read_jsonl_to_dict`` skips the others), HackRate and
its breakdown over every problem (``get_rank_result.py`` counts a problem without valid
tests as all-AC). PassRate counting empty problems as 0 is printed beside it. Several
samples of one problem are averaged first. A problem none of whose validators ran is
left out of both and counted in a note.
"""

from __future__ import annotations

from typing import Any

from tczoo.runner import Table
from tczoo.schema import ScoreRecord

METHOD_ORDER = ("crux", "pseudo", "algo", "lcb", "ht")
RATES = ("pass_rate", "hack_rate", "ac", "wa", "re", "tle")


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _numbers(r: ScoreRecord) -> dict[str, float]:
    """A record's metrics with its count of valid tests (``n_valid``) among them."""
    return r.metrics if r.n_valid is None else {**r.metrics, "n_valid": float(r.n_valid)}


def per_problem(records: list[ScoreRecord]) -> dict[str, dict[str, float]]:
    """Metrics (and ``n_valid``) per problem, each averaged over the samples that have it."""
    by: dict[str, list[dict[str, float]]] = {}
    for r in records:
        by.setdefault(r.problem_id, []).append(_numbers(r))
    out = {}
    for pid, recs in by.items():
        keys = {k for m in recs for k in m}
        out[pid] = {k: sum(m[k] for m in recs if k in m) / sum(k in m for m in recs) for k in keys}
    return out


def _method_key(method: str) -> tuple[int, str]:
    m = method.lower()
    return (METHOD_ORDER.index(m) if m in METHOD_ORDER else len(METHOD_ORDER), m)


def scales_of(records: list[ScoreRecord]) -> list[int]:
    return sorted({int(k.split("@")[1][:-1]) for r in records for k in r.metrics if k.startswith("hack_rate@")})


def unscorable(m: dict[str, float]) -> bool:
    """No working validator, or every test met a sandbox error: no rate means anything."""
    return bool(m.get("no_validator") or m.get("undecided"))


def row_values(problems: dict[str, dict[str, float]], suffix: str = "") -> dict[str, Any]:
    """PR, breakdown and HR of one group (``suffix`` "@2x" for a scaled prefix)."""
    scored = {p: m for p, m in problems.items() if not unscorable(m)}
    pr = [m["pass_rate"] for m in scored.values() if "pass_rate" in m]
    with_hr = [m for m in scored.values() if f"hack_rate{suffix}" in m]
    row: dict[str, Any] = {
        "problems": len(scored),
        "PR": _mean(pr),
        "PR incl. empty": _mean([m.get("pass_rate", 0.0) for m in scored.values()]),
        "HR": _mean([m[f"hack_rate{suffix}"] for m in with_hr]),
    }
    for k in ("ac", "wa", "re", "tle"):
        row[k.upper()] = _mean([m[f"{k}{suffix}"] for m in with_hr])
    row["no tests"] = sum(m.get("n_tests", 0) == 0 for m in scored.values())
    row["no valid"] = sum(m.get("n_valid", 0) == 0 for m in scored.values())
    wanted, used = f"n_wanted{suffix}", f"n_used{suffix}"
    row["tests wanted"] = _mean([m[wanted] for m in scored.values() if wanted in m])
    row["tests used"] = _mean([m[used] for m in scored.values() if used in m])
    row["short"] = sum(m.get(used, 0) < m.get(wanted, 0) for m in scored.values())
    return row


def summarize(scores: list[ScoreRecord]) -> list[Table]:
    groups: dict[tuple[str, str], list[ScoreRecord]] = {}
    for s in scores:
        groups.setdefault((s.model, s.method), []).append(s)
    ordered = sorted(groups, key=lambda mm: (mm[0], _method_key(mm[1])))
    scales = scales_of(scores)
    rows, scale_rows, notes = [], [], []
    for model, method in ordered:
        problems = per_problem(groups[(model, method)])
        base = row_values(problems)
        row = {"model": model, "method": method.upper(), **base}
        for k in scales:
            row[f"HR {k}x"] = row_values(problems, f"@{k}x")["HR"]
        rows.append(row)
        for k in scales:
            scale_rows.append({"model": model, "method": method.upper(), "k": k, **row_values(problems, f"@{k}x")})
        lost = sum(1 for m in problems.values() if unscorable(m))
        if lost:
            notes.append(f"{model} {method.upper()}: {lost} problem(s) left out: none of their validators "
                         "ran cleanly on any test, or every test met a sandbox error")
        if base["short"]:
            notes.append(f"{model} {method.upper()}: {base['short']} of {base['problems']} problem(s) had fewer "
                         f"valid tests than the budget (mean {base['tests used']:.2f} used of "
                         f"{base['tests wanted']:.2f} wanted)")
    main_scale = next((s.detail.get("scale") for s in scores if "scale" in s.detail), 1)
    budget = "every valid test" if main_scale is None else f"the first {main_scale} x rank valid tests"
    columns = ["model", "method", "problems", "PR", "AC", "WA", "RE", "TLE", "HR"]
    # "no valid tests" (problems without one) is added to every runner's table by tczoo.report
    columns += [f"HR {k}x" for k in scales] + ["PR incl. empty", "no tests"]
    notes[:0] = [f"HackRate and AC/WA/RE/TLE on {budget} (one seeded shuffle of the valid tests); "
                 "PR averages problems with generated tests, 'PR incl. empty' counts the others as 0; "
                 "HR counts a problem without valid tests as 0"]
    notes += _option_notes(scores)
    tables = [Table(title="TC-Bench HackRate and PassRate (Table 1 layout; %, macro over problems)",
                    columns=columns, rows=rows, notes=notes, decimals=2)]
    if scale_rows:
        tables.append(Table(
            title="TC-Bench test-time scaling (Appendix A.4: nested k x rank prefixes of the valid tests)",
            columns=["model", "method", "k", "problems", "tests wanted", "tests used", "short",
                     "AC", "WA", "RE", "TLE", "HR"],
            rows=scale_rows, decimals=2,
            notes=["tests wanted/used: mean per problem; short: problems with fewer valid tests than k x rank"]))
    return tables


def _option_notes(scores: list[ScoreRecord]) -> list[str]:
    notes = []
    if any(s.detail.get("consensus_outputs") for s in scores):
        notes.append("consensus_outputs was ON: a test every validator rejected with one agreed output was "
                     "kept with that output (the reference filter's rule, not the paper's definition)")
    for who in ("validators", "wrong"):
        if any(s.detail.get("limits", {}).get(who) == "problem" for s in scores):
            notes.append(f"{who} ran under the problems' own limits, not the reference's (time + 3 s, 5 x memory)")
    test_se = sum(s.metrics.get("n_test_sandbox_errors", 0) for s in scores)
    wrong_se = sum(s.metrics.get("n_wrong_sandbox_errors", 0) for s in scores)
    if test_se or wrong_se:
        notes.append(f"sandbox errors (infrastructure, not the programs): {int(test_se)} test(s) and "
                     f"{int(wrong_se)} wrong code(s) could not be judged and are left out of the rates")
    execs = sum(s.detail.get("executions", 0) for s in scores)
    full = sum(s.detail.get("executions_full", 0) for s in scores)
    if full:
        notes.append(f"early exit ran {execs} of {full} wrong-code executions ({100 * (1 - execs / full):.0f}% saved)")
    return notes


def external_result(records: list[ScoreRecord], *, benchmark_problems: int) -> dict[str, Any]:
    """The flat result of ``tczoo score --tests``: rates, and how many tests were used."""
    problems = per_problem(records)
    row = row_values(problems)
    hr_sum = sum(m.get("hack_rate", 0.0) for m in problems.values() if not unscorable(m))
    result: dict[str, Any] = {
        "pass_rate": row["PR"], "hack_rate": row["HR"],
        "ac": row["AC"], "wa": row["WA"], "re": row["RE"], "tle": row["TLE"],
        "problems": row["problems"],
        "tests_given": int(sum(m.get("n_tests", 0) for m in problems.values())),
        "tests_valid": int(sum(m.get("n_valid", 0) for m in problems.values())),
        "tests_used": int(sum(m.get("n_used", 0) for m in problems.values())),
        "problems_without_tests": benchmark_problems - len(problems),
        # the reference scores every problem of the benchmark; one without tests counts 0
        "hack_rate_all_problems": hr_sum / benchmark_problems if benchmark_problems else None,
    }
    lost = sum(1 for m in problems.values() if unscorable(m))
    if lost:
        result["problems_unscorable"] = lost
    se_tests = int(sum(m.get("n_test_sandbox_errors", 0) for m in problems.values()))
    se_wrong = int(sum(m.get("n_wrong_sandbox_errors", 0) for m in problems.values()))
    if se_tests or se_wrong:
        result["sandbox_errors"] = {"tests": se_tests, "wrong_codes": se_wrong}
    return result
