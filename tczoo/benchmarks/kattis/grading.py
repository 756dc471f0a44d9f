"""The Kattis format's default grader over a package's test groups: a submission's
verdict, and on a scoring problem its score, from its tests' verdicts.

The tests form a tree (``data/`` holds ``sample/`` and ``secret/``, groups nest to any
depth; items in the format's order). Each group's ``testdata.yaml`` settings (read by
the loader into ``meta.kattis.group_settings``, inherited from the closest ancestor that
has the file) decide its result: its items are judged in order, judging stops at the
first item that is not accepted when ``on_reject`` is ``break`` (the default), and the
group's verdict and score come from the default grader's ``grader_flags``: the verdict
``worst_error`` (the default: the first of JE, IF, RTE, MLE, TLE, OLE, WA among the
results), ``first_error`` or ``always_accept``, ``accept_if_any_accepted``; the score
``sum`` (the default), ``avg``, ``min`` or ``max`` of the items' scores, a test scoring
the group's ``accept_score`` (1) when accepted and its ``reject_score`` (0) otherwise;
``ignore_sample`` at the root keeps only the secret group's result. A judge error
anywhere is the group's result, as problemtools has it. A custom grader (``grading:
custom``) is not run: such packages are skipped by the loader.

With the default settings this is the pass-fail rule: samples, then the secret tests,
the first failing test's verdict is the submission's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from tczoo.schema import Problem

ORDER = ("JE", "IF", "RTE", "MLE", "TLE", "OLE", "WA", "PE", "AC")  # the default grader's worst first
TO_GRADER = {"SE": "JE", "CE": "JE", "RE": "RTE"}
FROM_GRADER = {"JE": "SE", "RTE": "RE", "IF": "SE", "PE": "WA"}
DEFAULTS = {"on_reject": "break", "grader_flags": "", "accept_score": 1.0, "reject_score": 0.0}
ROOT = "data"


@dataclass
class Result:
    verdict: str  # tczoo's verdict (AC, WA, TLE, RE, MLE, OLE, SE)
    score: float = 0.0
    failed_on: str = ""  # the first test (in judging order) that was not accepted, among those counted


@dataclass
class TestTree:
    __test__ = False
    items: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # group -> ("case"|"group", name)
    settings: dict[str, dict] = field(default_factory=dict)

    @classmethod
    def of(cls, problem: Problem) -> "TestTree":
        from tczoo.benchmarks.kattis.timing import all_tests

        kattis = problem.meta.get("kattis", {})
        tree = cls(items={ROOT: []}, settings=dict(kattis.get("group_settings") or {}))
        for name, _, _ in all_tests(problem):
            parts = name.split("/")
            parent = ROOT
            for depth in range(1, len(parts)):
                group = "/".join(parts[:depth])
                if group not in tree.items:
                    tree.items[group] = []
                    tree.items[parent].append(("group", group))
                parent = group
            tree.items[parent].append(("case", name))
        return tree

    def grade(self, verdict_of: Callable[[str], str]) -> Result:
        """The root's result; ``verdict_of(test)`` judges a test (called only for the tests
        the grading needs, in order)."""
        return self._group(ROOT, verdict_of)

    def full_score(self) -> float:
        """The score of a submission that passes every test."""
        return self.grade(lambda name: "AC").score

    def _group(self, label: str, verdict_of: Callable[[str], str]) -> Result:
        st = {**DEFAULTS, **self.settings.get(label, {})}
        results: list[tuple[str, float, str]] = []  # (grader verdict, score, first failure)
        for kind, name in self.items.get(label, []):
            if kind == "case":
                ours = verdict_of(name)
                verdict = TO_GRADER.get(ours, ours)
                score = float(st["accept_score"] if verdict == "AC" else st["reject_score"])
                results.append((verdict, score, "" if verdict == "AC" else name))
            else:
                sub = self._group(name, verdict_of)
                results.append((TO_GRADER.get(sub.verdict, sub.verdict), sub.score, sub.failed_on))
            if results[-1][0] != "AC" and st["on_reject"] == "break":
                break
        if not results:
            return Result("AC", 0.0)
        judge_error = next((r for r in results if r[0] == "JE"), None)
        if judge_error is not None:
            return Result("SE", judge_error[1], judge_error[2])
        flags = str(st["grader_flags"]).split()
        if "ignore_sample" in flags and label == ROOT:
            results = results[-1:]
        verdicts = [r[0] for r in results]
        mode = next((f for f in reversed(flags) if f in ("worst_error", "no_errors", "first_error",
                                                           "always_accept")), "worst_error")
        if "accept_if_any_accepted" in flags and "AC" in verdicts:
            verdict = "AC"
        elif mode == "always_accept":
            verdict = "AC"
        elif mode == "first_error":
            verdict = next((v for v in verdicts if v != "AC"), "AC")
        else:
            verdict = min(verdicts + ["AC"], key=lambda v: ORDER.index(v) if v in ORDER else 0)
        scores = [r[1] for r in results]
        how = next((f for f in reversed(flags) if f in ("sum", "avg", "min", "max")), "sum")
        score = {"sum": sum, "min": min, "max": max, "avg": lambda xs: sum(xs) / len(xs)}[how](scores)
        failed_on = next((r[2] for r in results if r[2]), "")
        return Result(FROM_GRADER.get(verdict, verdict), float(score), failed_on)
