"""Correctness verdicts scored as TRAILS scores them: MCC and P4 over (code, label) pairs,
tokens per task, stability over runs and the overlap of methods (TRAILS Tables 1-3).

Pairs. Every problem with accepted and wrong solutions gives (specification, code,
label) pairs: an accepted solution is a correct code, a wrong one an incorrect code — the
labels come from the data (a judge's verdicts), never from a model. By default one
correct and one incorrect code are drawn per problem, as the paper samples CoCoClaNeL
(``per_label``; None takes them all), among the languages in ``languages`` (C++ and
Python). Each pair is given ``runs`` times (default: the run's ``--samples`` when above 1,
else 3: the paper's three reruns) to a SPEC_TARGET method, run r with task seed
``seed + r`` and fresh model samples.

What is scored. Any suite that carries a verdict (``TestSuite.verdict``, a
``CodeVerdict``; by convention an LLM_JUDGE suite): the runner never looks at how it
was reached, so a plugin verifier is scored like TRAILS. A graded verdict (a
``score``, TRAILS's share of CORRECT pairs) is decided at each of ``thresholds``
(score > τ); a binary one is its own decision at every τ. A suite without a verdict, or
with ``correct=None`` (unparsed answers, no scenario, HoarePrompt's call budget ...), is
*undecided* and counted in every table. The paper gives every code a label, so both
readings are printed: ``undecided="drop"`` (default) leaves such tasks out of MCC/P4 in
the Table 1 layout and a second table counts them as wrong predictions (a correct code
predicted incorrect, an incorrect one predicted correct); ``undecided="wrong"`` swaps
the two tables.

Metrics, per (dataset, model, method[, τ]): the confusion matrix of each run (correct
code = positive), MCC and P4 = 4·TP·TN / (4·TP·TN + (TP+TN)(FP+FN)) per run — 0 where
undefined (a row or column of the matrix is empty: scikit-learn's convention for MCC;
the paper does not say) — averaged over runs (Table 1); tokens per task in
thousands (prompt + completion, averaged over all (code, run) tasks); relative change
against ``baseline`` (zero-shot CoT). Stability (Table 2), per label class c: codes of
label c that every run labels c, over codes that at least one run labels c
("reachable"); graded methods at ``stability_threshold`` (0.8). Overlap (Table 3): for
each label class, the codes each method labels correctly in every run, counted by the
regions of their Venn diagram (``a∩b`` = by a and b, not by the others).
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from itertools import combinations
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, field_validator

from tczoo.errors import UserError
from tczoo.runner import Runner, RunnerParams, Table, TaskSpec
from tczoo.schema import Language, Problem, Program, ScoreRecord, Setting, Task, TestSuite
from tczoo.submissions import CandidatePool

Threshold = Annotated[float, Field(ge=0.0, le=1.0)]


class NotAVerifier(UserError, ValueError):
    """A method that is not given the program under test cannot be scored on verdicts."""


class VerdictParams(RunnerParams):
    model_config = ConfigDict(extra="forbid")

    runs: int | None = Field(None, ge=1, le=50, description="runs per pair (None: samples if > 1, else 3)")
    per_label: int | None = Field(1, ge=1, description="codes drawn per label per problem (None: all)")
    languages: list[str] = Field(default_factory=lambda: ["cpp", "python"], description="languages of the codes")
    only: list[str] | None = Field(None, description="only codes whose name contains one of these")
    thresholds: list[Threshold] = Field(default_factory=lambda: [0.6, 0.7, 0.8], min_length=1,
                                        description="τ at which graded verdicts are decided (Table 1)")
    stability_threshold: Threshold = Field(0.8, description="τ of graded verdicts in Tables 2 and 3")
    baseline: str = Field("cot", description="method the relative change of Table 1 is measured against")
    undecided: Literal["drop", "wrong"] = Field(
        "drop", description="tasks without a verdict in Table 1: left out of MCC/P4, or counted as wrong predictions "
                            "(the other reading is printed beside it)")
    seed: int = Field(0, description="seed of the draw of codes")
    candidates: str | None = Field(None, description="a candidates file (tczoo candidates): its labelled "
                                                     "programs are codes to judge too")

    @field_validator("languages")
    @classmethod
    def _known_languages(cls, value: list[str]) -> list[str]:
        return [Language.parse(v).value for v in value]  # ValueError names the unknown one


# --------------------------------------------------------------------------- metrics


def confusion(pairs: list[tuple[bool, bool]]) -> tuple[int, int, int, int]:
    """(TP, FP, TN, FN) of (label, prediction) pairs; correct code is the positive class."""
    tp = sum(1 for y, p in pairs if y and p)
    fp = sum(1 for y, p in pairs if not y and p)
    tn = sum(1 for y, p in pairs if not y and not p)
    fn = sum(1 for y, p in pairs if y and not p)
    return tp, fp, tn, fn


def mcc(tp: int, fp: int, tn: int, fn: int) -> float:
    """Matthews correlation coefficient; 0 when undefined (a row or column of the matrix is empty)."""
    denom = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    return 0.0 if denom == 0 else (tp * tn - fp * fn) / math.sqrt(denom)


def p4(tp: int, fp: int, tn: int, fn: int) -> float:
    """P4 (Sitarz 2022): the harmonic mean of precision, recall, specificity and NPV;
    0 when undefined."""
    denom = 4 * tp * tn + (tp + tn) * (fp + fn)
    return 0.0 if denom == 0 else 4 * tp * tn / denom


# --------------------------------------------------------------------------- the runner


class VerdictRunner(Runner):
    name = "verdict"
    paper = "TRAILS (Tambon & Papadakis, 2026) Tables 1-3"
    summary = "MCC / P4 of correctness verdicts over (code, label) pairs, tokens per task, stability over runs"
    Params = VerdictParams
    screens_inputs = False  # it scores a verdict, not the suite's inputs
    # CoT and HoarePrompt make no tests and TRAILS's early stop leaves none: the verdict is the product
    scores_empty_suites = True

    def __init__(self, sandbox: Any = None, **params: Any):
        super().__init__(sandbox, **params)
        self.pool = CandidatePool(self.params.candidates)

    def label(self, method: str) -> str:
        return method  # the tables name methods as registered (trails, hoareprompt, cot)

    # ------------------------------------------------------------------ pairs

    def codes(self, problem: Problem) -> list[tuple[bool, str, Program]]:
        """(label, name, program) of the codes this problem contributes (its own, and the
        labelled candidates of ``candidates``)."""
        problem = self.pool.problem(problem)
        langs = {Language(v) for v in self.params.languages}
        rng = random.Random(f"{self.params.seed}:{problem.id}")
        out = []
        for label, pool, kind in ((True, problem.solutions, "accepted"), (False, problem.wrong_solutions, "wrong")):
            named = [(p.name or f"{kind}-{i}", p) for i, p in enumerate(pool) if p.language in langs]
            if self.params.only:
                named = [(n, p) for n, p in named if any(o in n for o in self.params.only)]
            if self.params.per_label is not None and len(named) > self.params.per_label:
                named = rng.sample(named, self.params.per_label)
            out += [(label, n, p) for n, p in named]
        return out

    def tasks(self, problem: Problem, method_cls: type, *, samples: int, seed: int) -> list[TaskSpec]:
        if method_cls.setting is not Setting.SPEC_TARGET:
            raise NotAVerifier(f"runner {self.name} scores verdicts on a program under test; method "
                             f"{method_cls.name} ({method_cls.setting.value}) is not given one")
        runs = self.params.runs or (samples if samples > 1 else 3)
        specs = []
        for label, name, program in self.codes(problem):
            base = Task.from_problem(problem, Setting.SPEC_TARGET, seed=seed, target=program)
            for r in range(runs):
                specs.append(TaskSpec(key=f"{name}/r{r}", task=base.model_copy(update={"seed": seed + r}), sample=r,
                                      context={"label": label, "code": name, "run": r,
                                               "language": program.language.value}))
        return specs

    # ------------------------------------------------------------------ scoring

    def score(self, problem: Problem, spec: TaskSpec, suite: TestSuite) -> ScoreRecord:
        ctx = spec.context
        usage = suite.provenance.usage
        v = suite.verdict
        metrics: dict[str, float] = {"label": float(ctx["label"]), "run": float(ctx["run"]),
                                     "tokens": float(usage.prompt_tokens + usage.completion_tokens),
                                     "calls": float(usage.calls + usage.cached_calls)}
        decided = v is not None and v.correct is not None
        metrics["decided"] = float(decided)
        if decided:
            metrics["pred"] = float(v.correct)
            for tau in self.params.thresholds:
                metrics[f"pred@{tau:g}"] = float(v.label(tau))
            metrics[f"pred@{self.params.stability_threshold:g}"] = float(v.label(self.params.stability_threshold))
            if v.score is not None:
                metrics["score"] = v.score
        detail: dict[str, Any] = {
            "dataset": problem.source or "benchmark", "code": ctx["code"], "language": ctx["language"],
            "label": bool(ctx["label"]), "run": ctx["run"], "graded": bool(v is not None and v.score is not None),
            "reason": (v.reason or "judged") if v is not None else "no_verdict", "oracle": suite.oracle.kind.value,
        }
        if suite.provenance.failures:
            detail["failures"] = dict(Counter(f"{f.stage}:{f.reason}" for f in suite.provenance.failures))
        # n_valid: the report's "no valid tests" is "no verdict reached"
        return ScoreRecord(runner=self.name, method=suite.provenance.method, model=suite.provenance.model,
                           problem_id=problem.id, metrics=metrics, detail=detail, n_valid=int(decided))

    def settings_used(self, scores: list[ScoreRecord]) -> list[tuple[str, str]]:
        """The reruns per code and the codes as scored (the paper: three reruns)."""
        scores = [s for s in scores if s.runner == self.name and "label" in s.metrics]
        if not scores:
            return []
        runs: dict[tuple[str, str, Any], set[int]] = defaultdict(set)
        for s in scores:
            runs[(s.method, s.problem_id, s.detail.get("code"))].add(int(s.metrics["run"]))
        counts = sorted({len(v) for v in runs.values()})
        codes = {(p, c) for _, p, c in runs}
        labels = Counter(bool(s.metrics["label"]) for s in {(s.problem_id, s.detail.get("code")): s
                                                             for s in scores}.values())
        return [("samples", f"{'/'.join(map(str, counts))} run(s) per code, {len(codes)} code(s) "
                            f"({labels[True]} correct, {labels[False]} incorrect)")]

    # ------------------------------------------------------------------ tables

    def summarize(self, scores: list[ScoreRecord]) -> list[Table]:
        scores = [s for s in scores if s.runner == self.name and "label" in s.metrics]
        if not scores:
            return []
        groups: dict[tuple[str, str], dict[str, list[ScoreRecord]]] = defaultdict(lambda: defaultdict(list))
        for s in scores:
            groups[(s.detail.get("dataset", "benchmark"), s.model)][s.method].append(s)
        methods = _method_order({s.method for s in scores}, self.params.baseline)
        main = self.params.undecided
        other = "wrong" if main == "drop" else "drop"
        tables = [self._table1(groups, methods, main)]
        if any(not s.metrics.get("decided") for s in scores):  # else the other reading is the same table
            tables.append(self._table1(groups, methods, other))
        return tables + [self._table2(groups, methods), self._table3(groups, methods), self._reasons(groups, methods)]

    def _taus(self, records: list[ScoreRecord]) -> list[float | None]:
        graded = any(r.detail.get("graded") for r in records)
        return list(self.params.thresholds) if graded else [None]

    @staticmethod
    def _pred(r: ScoreRecord, tau: float | None) -> bool | None:
        if not r.metrics.get("decided"):
            return None
        key = "pred" if tau is None else f"pred@{tau:g}"
        return bool(r.metrics.get(key, r.metrics["pred"]))

    def _run_scores(self, records: list[ScoreRecord], tau: float | None, undecided: str = "drop"
                    ) -> tuple[float, float]:
        """MCC and P4 averaged over runs; an undecided task is left out (``drop``) or
        counted as the wrong prediction for its label (``wrong``)."""
        by_run: dict[int, list[tuple[bool, bool]]] = defaultdict(list)
        for r in records:
            pred = self._pred(r, tau)
            label = bool(r.metrics["label"])
            if pred is None and undecided == "wrong":
                pred = not label
            if pred is not None:
                by_run[int(r.metrics["run"])].append((label, pred))
        if not by_run:
            return float("nan"), float("nan")
        mccs = [mcc(*confusion(pairs)) for pairs in by_run.values()]
        p4s = [p4(*confusion(pairs)) for pairs in by_run.values()]
        return sum(mccs) / len(mccs), sum(p4s) / len(p4s)

    @staticmethod
    def _label(method: str, tau: float | None) -> str:
        return method if tau is None else f"{method} τ={tau:g}"

    def _table1(self, groups, methods, undecided: str = "drop") -> Table:
        columns = ["dataset", "model"]
        taus = {m: self._taus([r for g in groups.values() for r in g.get(m, [])]) for m in methods}
        base = self.params.baseline
        for m in methods:
            for tau in taus[m]:
                lab = self._label(m, tau)
                columns += [f"{lab} MCC", f"{lab} P4"]
                if m != base and base in methods:
                    columns += [f"{lab} MCC Δ%", f"{lab} P4 Δ%"]
            columns.append(f"{m} tokens (k)")
        columns += ["codes", "runs", "undecided"]
        rows = []
        for (dataset, model), by_method in sorted(groups.items()):
            row: dict[str, Any] = {"dataset": dataset, "model": model}
            base_scores = self._run_scores(by_method[base], None, undecided) if by_method.get(base) else None
            for m in methods:
                recs = by_method.get(m, [])
                for tau in taus[m]:
                    lab = self._label(m, tau)
                    got = self._run_scores(recs, tau, undecided) if recs else (None, None)
                    row[f"{lab} MCC"], row[f"{lab} P4"] = got
                    if m != base and base in methods:
                        for i, name in enumerate(("MCC", "P4")):
                            row[f"{lab} {name} Δ%"] = _relative(got[i], base_scores[i] if base_scores else None)
                row[f"{m} tokens (k)"] = (sum(r.metrics.get("tokens", 0.0) for r in recs) / len(recs) / 1000
                                          if recs else None)
            every = [r for recs in by_method.values() for r in recs]
            row["codes"] = len({(r.problem_id, r.detail.get("code")) for r in every})
            row["runs"] = len({int(r.metrics["run"]) for r in every})
            row["undecided"] = sum(1 for r in every if not r.metrics.get("decided"))
            rows.append(row)
        notes = [
            "MCC and P4 per run (correct code = positive class), averaged over runs; 0 where undefined (a row or "
            "column of the confusion matrix is empty: scikit-learn's convention; the paper does not say). "
            "Graded verdicts (TRAILS's share of CORRECT pairs) are decided at each τ (score > τ). "
            "Tokens: thousands per (code, run) task, prompt + completion.",
            "undecided: (code, run) tasks without a verdict (no readable answer, provider failure, call budget ...), "
            "all methods together; "
            + ("they are left out of MCC and P4 (see the verdicts table)." if undecided == "drop" else
               "each is counted as a wrong prediction: a correct code predicted incorrect, an incorrect one "
               "predicted correct (the paper gives every code a label)."),
        ]
        if base in methods:
            notes.append(f"Δ%: relative change against {base} (the paper's Table 1 reports it against zero-shot CoT).")
        title = "Correctness verdicts (TRAILS Table 1 layout): MCC, P4, tokens per task"
        if undecided != self.params.undecided:
            title += (", undecided tasks counted as wrong predictions" if undecided == "wrong"
                      else ", undecided tasks left out")
        return Table(title=title, columns=columns, rows=rows, notes=notes, decimals=3)

    def _consistent(self, records: list[ScoreRecord], tau: float | None, runs: int) -> dict[str, Any]:
        """Per code: its label, the set of labels its runs gave, and whether every one of
        ``runs`` runs gave one."""
        per_code: dict[tuple[str, str], dict[str, Any]] = {}
        for r in records:
            code = (r.problem_id, r.detail.get("code"))
            entry = per_code.setdefault(code, {"label": bool(r.metrics["label"]), "preds": {}})
            entry["preds"][int(r.metrics["run"])] = self._pred(r, tau)
        for entry in per_code.values():
            preds = entry["preds"]
            entry["complete"] = len(preds) == runs and all(p is not None for p in preds.values())
        return per_code

    def _stable_sets(self, records: list[ScoreRecord], runs: int) -> tuple[dict[bool, set], dict[bool, set]]:
        """(codes labelled c correctly by every run, codes labelled c by at least one run), per c."""
        tau = self.params.stability_threshold if any(r.detail.get("graded") for r in records) else None
        per_code = self._consistent(records, tau, runs)
        stable: dict[bool, set] = {True: set(), False: set()}
        reach: dict[bool, set] = {True: set(), False: set()}
        for code, e in per_code.items():
            for c in (True, False):
                if any(p is c for p in e["preds"].values()):
                    reach[c].add(code)
                if e["label"] is c and e["complete"] and all(p is c for p in e["preds"].values()):
                    stable[c].add(code)
        return stable, reach

    def _table2(self, groups, methods) -> Table:
        columns = ["dataset", "model"]
        for m in methods:
            columns += [f"{m} correct", f"{m} correct %", f"{m} incorrect", f"{m} incorrect %"]
        rows = []
        for (dataset, model), by_method in sorted(groups.items()):
            runs = len({int(r.metrics["run"]) for recs in by_method.values() for r in recs})
            row: dict[str, Any] = {"dataset": dataset, "model": model}
            for m in methods:
                recs = by_method.get(m, [])
                if not recs:
                    continue
                stable, reach = self._stable_sets(recs, runs)
                for c, name in ((True, "correct"), (False, "incorrect")):
                    row[f"{m} {name}"] = len(stable[c])
                    row[f"{m} {name} %"] = 100.0 * len(stable[c]) / len(reach[c]) if reach[c] else None
            rows.append(row)
        notes = [f"correct (incorrect): correct (incorrect) codes that every run labels so; %: of the codes at least "
                 f"one run labels correct (incorrect). Graded verdicts at τ={self.params.stability_threshold:g}. "
                 "A code with an undecided or missing run is never stable."]
        return Table(title="Verdict stability over runs (TRAILS Table 2 layout)", columns=columns, rows=rows,
                     notes=notes)

    def _table3(self, groups, methods) -> Table:
        regions = [combo for k in range(1, len(methods) + 1) for combo in combinations(methods, k)]
        names = [("only " + c[0]) if len(c) == 1 else "∩".join(c) for c in regions]
        columns = ["dataset", "model", "label", *names, "none", "codes"]
        rows = []
        for (dataset, model), by_method in sorted(groups.items()):
            runs = len({int(r.metrics["run"]) for recs in by_method.values() for r in recs})
            stable = {m: self._stable_sets(by_method.get(m, []), runs)[0] for m in methods}
            labels: dict[Any, bool] = {}
            for recs in by_method.values():
                for r in recs:
                    labels[(r.problem_id, r.detail.get("code"))] = bool(r.metrics["label"])
            for c, name in ((True, "correct"), (False, "incorrect")):
                codes = {code for code, lab in labels.items() if lab is c}
                row: dict[str, Any] = {"dataset": dataset, "model": model, "label": name}
                covered = set()
                for combo, col in zip(regions, names):
                    inside = set(codes)
                    for m in methods:
                        inside &= stable[m][c] if m in combo else (codes - stable[m][c])
                    row[col] = len(inside)
                    covered |= inside
                row["none"] = len(codes - covered)
                row["codes"] = len(codes)
                rows.append(row)
        notes = ["Codes each method labels correctly in every run, by region of the Venn diagram: 'only a' = by a "
                 "alone, 'a∩b' = by a and b and by no other method; 'none' = by no method. Graded verdicts at "
                 f"τ={self.params.stability_threshold:g}."]
        return Table(title="Consistently and correctly labelled codes per method (TRAILS Table 3 layout)",
                     columns=columns, rows=rows, notes=notes)

    def _reasons(self, groups, methods) -> Table:
        columns = ["dataset", "model", "method", "tasks", "decided", "score correct", "score incorrect", "reasons"]
        rows = []
        for (dataset, model), by_method in sorted(groups.items()):
            for m in methods:
                recs = by_method.get(m, [])
                if not recs:
                    continue
                reasons = Counter(r.detail.get("reason", "") for r in recs)
                by_label = {c: [r.metrics["score"] for r in recs if "score" in r.metrics
                                and bool(r.metrics["label"]) is c] for c in (True, False)}
                rows.append({
                    "dataset": dataset, "model": model, "method": m, "tasks": len(recs),
                    "decided": sum(1 for r in recs if r.metrics.get("decided")),
                    "score correct": _mean(by_label[True]), "score incorrect": _mean(by_label[False]),
                    "reasons": ", ".join(f"{k} {v}" for k, v in sorted(reasons.items(),  # ties by name
                                                                         key=lambda kv: (-kv[1], str(kv[0])))),
                })
        return Table(title="Verdicts per method: how they were reached", columns=columns, rows=rows,
                     notes=["score: mean graded score (share of CORRECT pairs) of correct and of incorrect codes; "
                            "reasons: judged, early_stop (consecutive scenarios without a valid input), "
                            "compile_error, no_valid_input, unparsed, call_budget, llm, no_verdict ...",
                            "no valid tests (added by the report): problems where no (code, run) task reached a "
                            "verdict"],
                     decimals=3)


def _relative(value: float | None, base: float | None) -> float | None:
    if value is None or base is None or base == 0 or math.isnan(value) or math.isnan(base):
        return None
    return 100.0 * (value - base) / abs(base)


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _method_order(methods: set[str], baseline: str) -> list[str]:
    """The paper's column order where it applies (TRAILS, HoarePrompt, CoT), others by name."""
    known = list(dict.fromkeys(["trails", "hoareprompt", baseline]))
    return [m for m in known if m in methods] + sorted(methods - set(known))
