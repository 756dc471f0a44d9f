"""The suite as a judge: labelled submissions run on a test suite, the suite's verdict
compared with their labels (docs/agreement.md).

For each problem, every labelled submission it has (``tczoo.submissions``: the jury's
or the benchmark's accepted and wrong programs, and model-written candidates labelled
by the golden tests, ``candidates``) runs on the suite's tests with the suite's own
oracle (``tczoo.execution.SuiteJudge``: expected outputs, the problem's comparator or
output validator, the suite's reference or checker program), under the problem's
limits. The suite *accepts* a submission that passes every test it can judge
(*usable* tests: a test without an expected output, or one the suite's reference
program fails on, judges nothing) and *rejects* one that fails any. Accepted-labelled
submissions run every test; wrong-labelled ones stop at their first failure on a sound
test (below). Positive = accepted, as every paper below has it.

Per suite (counts over submissions; TP: accepted and accepted by the suite, FN:
accepted but rejected, TN: wrong and rejected, FP: wrong but accepted):

- TPR = TP / (TP + FN), TNR = TN / (TN + FP) — CodeContests+ (Wang et al., 2025,
  arXiv:2506.05817) and CodeContests-O (Cai et al., 2026, arXiv:2601.13682); *Avg* =
  (TPR + TNR) / 2 is CodeContests-O's summary column. Macro: per problem, then the mean
  over problems (CodeContests-O's released evaluation script does this; CodeContests+
  does not spell its averaging out — see docs/agreement.md);
- FPR = FP / (FP + TN), FNR = FN / (FN + TP), consistency = (TP + TN) / all — AutoCode
  (Zhou et al., 2025, arXiv:2510.12803), over the pooled submissions (micro);
- precision = TP / (TP + FP), "the percentage of actually correct code within the
  predicted correct ones", recall = TP / (TP + FN) — HardTests (He et al., 2025,
  arXiv:2505.24098), over the pooled programs (micro);
- DR, the share of incorrect solutions some test detects, and VAcc, 1 when every
  incorrect solution is detected — SAGA (Ma et al., 2025, arXiv:2507.06920), averaged
  over problems (VAcc: the share of problems); DR@k and VAcc@k on the suite's first k
  tests (SAGA's Table 2: k = 20, 50);
- Fault Coverage@N, the share of incorrect solutions that fail one of the suite's first
  N tests (N = 1, 5, 10, 20), averaged over problems, and Fault Exposure, the share of
  targeted incorrect solutions the single test written for each exposes (over all
  targets) — TestCase-Eval (Yang et al., 2025, arXiv:2506.12278).

DR, VAcc, Coverage@N and Exposure count a wrong submission as detected only by a
*sound* test, one every runnable accepted-labelled submission passes: the papers'
tests take their outputs from correct solutions, so a test with a wrong expected output
would otherwise "detect" everything (``detect_on: all`` counts every usable test).
TPR/TNR/precision/consistency judge with the whole suite, as a judge would.

Which submissions judge a suite (``judged``): by default the method's paper's
population — every labelled submission for a method whose paper scores its suites on
the submissions it was shown (``Method.judges_shown``: SAGA, CodeContests-O), else
only those its task did not show it (``Task.shown_programs``); ``all`` and
``held_out`` force one or the other.

Never a verdict: a submission that cannot run here (a compile error, no compiler) is
reported and left out of every count; a sandbox failure on a test a submission's
verdict depends on leaves that submission undetermined (left out, counted); a suite
with no usable test is ``failed`` (``n_valid`` 0), never a number. The jury's own tests
(the problem's golden tests, same code path) are scored once per problem as the
reference row. A method that works on a program under test (``spec+target``) gets one
task per wrong-labelled submission, asked for ``exposure_tests`` test(s): Fault
Exposure's setting.
"""

from __future__ import annotations

import hashlib
import random
import threading
from collections import defaultdict
from typing import Any, Literal

from pydantic import Field

from tczoo.execution import (REJECTED_NOTE, SuiteJudge, as_generated, can_check, position, rejected_columns,
                             rejected_detail)
from tczoo.execution.judge import ACCEPT, CANNOT_RUN, REJECT, UNDETERMINED, failed
from tczoo.runner import Matrix, Runner, RunnerParams, Table, TaskSpec
from tczoo.schema import BASE_TEST, Oracle, OracleKind, Problem, ScoreRecord, Setting, Task, TestCase, TestSuite
from tczoo.submissions import CandidatePool, Label, LabelledSubmission, labelled_submissions, unrunnable_submissions

COVERAGE = (1, 5, 10, 20)
AT = (20, 50)  # SAGA's DR@k / VAcc@k (Table 2)
_SHARED: dict[str, dict[str, Any]] = {}  # reference rows computed in this process (see AgreementRunner.reference)
_SHARED_LOCK = threading.Lock()
SOURCES = ("jury", "benchmark", "candidate")


class AgreementParams(RunnerParams):
    candidates: str | None = Field(None, description="a candidates file (tczoo candidates) adding labelled "
                                                     "model-written programs")
    sources: list[Literal["jury", "benchmark", "candidate"]] = Field(
        default_factory=lambda: list(SOURCES), description="which labelled submissions judge the suites")
    reference: bool = Field(True, description="score the jury's golden tests too (the reference row)")
    coverage: list[int] = Field(default_factory=lambda: list(COVERAGE), description="N of Fault Coverage@N")
    at: list[int] = Field(default_factory=lambda: list(AT), description="k of DR@k and VAcc@k, on the suite's "
                                                                      "first k tests (SAGA's Table 2: 20, 50)")
    budget: int | None = Field(None, ge=1, description="tests a method is asked for (None: the largest N of "
                                                       "Cov@N); a method whose paper sets its own suite size "
                                                       "uses it only when told to (its use_task_budget)")
    judged: Literal["paper", "all", "held_out"] = Field(
        "paper", description="which labelled submissions judge a suite: the method's paper's population "
                             "(every one when the paper judges the submissions its method was shown — SAGA, "
                             "CodeContests-O —, else the held-out ones), all, or only those the task did not show")
    exposure_tests: int = Field(1, ge=1, description="tests a spec+target method writes per target "
                                                    "(TestCase-Eval: one)")
    max_targets: int | None = Field(None, ge=1, description="wrong submissions targeted per problem (None: all)")
    method_correct: int = Field(1, ge=1, description="accepted programs handed to a spec+correct method "
                                                     "(left out of that suite's judged submissions)")
    detect_on: Literal["sound", "all"] = Field("sound", description="tests that count for DR, VAcc, Coverage and "
                                                                    "Exposure: sound ones (the papers'), or all")
    checker_time_ms: int = Field(20_000, ge=100, description="CPU time per check_output call")
    seed: int = Field(0, description="seed of the sampled target submissions and of the correct codes a method is shown")


# --------------------------------------------------------------------------- metrics (pure)


def _pct(num: int, den: int) -> float | None:
    return 100.0 * num / den if den else None


def agreement(rows: list[dict[str, Any]], positions: list[int], *, coverage=COVERAGE, detect_on: str = "sound",
              targets: list[str] = (), exposure_tests: int = 1, at=AT) -> tuple[dict[str, float], dict[str, Any]]:
    """Every metric of one suite from its matrix: ``rows`` are submissions
    ``{"name", "label": "accepted"|"wrong", "cannot_run": str, "verdicts": [...]}`` with
    one verdict per usable test (``AC``, ``WA``, ``TLE``, ``RE``, ``MLE``, ``OLE``,
    ``SE``, ``""`` not run); ``positions[p]`` is the position as generated of usable test ``p``
    (the windows below count from it).
    Returns (metrics, facts): metrics in %, counts as floats; a rate without a
    denominator is absent, never 0. Coverage@N (TestCase-Eval) and DR@k (SAGA) are one
    number, the detection rate on the suite's first N tests: ``cov@N`` for every N of
    ``coverage`` and ``at``, with ``vacc@k`` beside it for every k of ``at``."""
    n = len(positions)
    status = {r["name"]: _status(r) for r in rows}
    accepted = [r for r in rows if r["label"] == Label.ACCEPTED.value and status[r["name"]] != CANNOT_RUN]
    sound = [p for p in range(n) if all(r["verdicts"][p] == "AC" for r in accepted)]
    detect = set(sound) if detect_on == "sound" else set(range(n))
    counted = {k: 0 for k in ("tp", "fn", "tn", "fp")}
    for r in rows:
        s = status[r["name"]]
        if s in (ACCEPT, REJECT):
            key = ("tp" if s == ACCEPT else "fn") if r["label"] == Label.ACCEPTED.value else \
                ("fp" if s == ACCEPT else "tn")
            counted[key] += 1
    tp, fn, tn, fp = counted["tp"], counted["fn"], counted["tn"], counted["fp"]
    m: dict[str, float] = {k: float(v) for k, v in counted.items()}
    m.update({"n_tests_usable": float(n), "n_sound": float(len(sound)),
              "n_accepted": float(tp + fn), "n_wrong": float(tn + fp),
              "n_cannot_run": float(sum(s == CANNOT_RUN for s in status.values())),
              "n_undetermined": float(sum(s == UNDETERMINED for s in status.values()))})
    rates = {"tpr": _pct(tp, tp + fn), "tnr": _pct(tn, tn + fp), "fpr": _pct(fp, fp + tn), "fnr": _pct(fn, fn + tp),
             "consistency": _pct(tp + tn, tp + tn + fp + fn), "precision": _pct(tp, tp + fp),
             "recall": _pct(tp, tp + fn)}
    if rates["tpr"] is not None and rates["tnr"] is not None:
        rates["avg"] = (rates["tpr"] + rates["tnr"]) / 2
    m.update({k: v for k, v in rates.items() if v is not None})
    # detection (SAGA, TestCase-Eval): wrong submissions, by sound tests
    wrong = [r for r in rows if r["label"] == Label.WRONG.value and status[r["name"]] != CANNOT_RUN]
    first = {r["name"]: next((p for p in range(n) if p in detect and failed(r["verdicts"][p])), None) for r in wrong}

    def unknown_before(r: dict, limit: int | None) -> bool:
        """A detecting test before ``limit`` (a suite index) whose verdict is unknown."""
        return any(p in detect and r["verdicts"][p] in ("SE", "") and (limit is None or positions[p] < limit)
                   for p in range(n))

    decided = [r for r in wrong if first[r["name"]] is not None or not unknown_before(r, None)]
    detected = [r for r in decided if first[r["name"]] is not None]
    m["dr_n"], m["dr_detected"] = float(len(decided)), float(len(detected))
    if decided:
        m["dr"] = 100.0 * len(detected) / len(decided)
        if len(decided) == len(wrong):
            m["vacc"] = 100.0 if len(detected) == len(decided) else 0.0
    for big_n in sorted({*coverage, *at}):
        hit = [r for r in wrong if first[r["name"]] is not None and positions[first[r["name"]]] < big_n]
        known = [r for r in wrong if r in hit or not unknown_before(r, big_n)]
        m[f"cov@{big_n}_n"], m[f"cov@{big_n}_detected"] = float(len(known)), float(len(hit))
        if known:
            m[f"cov@{big_n}"] = 100.0 * len(hit) / len(known)
            if big_n in at and len(known) == len(wrong):
                m[f"vacc@{big_n}"] = 100.0 if len(hit) == len(known) else 0.0
    facts: dict[str, Any] = {"status": status, "sound": sound, "first_detection": first,
                             "vacuous_soundness": not accepted}
    exposures = {}
    for name in targets:
        r = next((x for x in rows if x["name"] == name), None)
        if r is None or status[name] == CANNOT_RUN:
            continue
        window = [p for p in range(n) if positions[p] < exposure_tests and p in detect]
        if any(failed(r["verdicts"][p]) for p in window):
            exposures[name] = True
        elif any(r["verdicts"][p] in ("SE", "") for p in window):
            continue  # undetermined
        else:
            exposures[name] = False
    if targets:
        m["exposure_n"] = float(len(exposures))
        m["exposed"] = float(sum(exposures.values()))
        if exposures:
            m["exposure"] = 100.0 * sum(exposures.values()) / len(exposures)
    facts["exposures"] = exposures
    return m, facts


def _base_count(tests: list[TestCase]) -> int | None:
    """How many of the suite's first tests are its base (``BASE_TEST``), when a method
    marked them; None when it marked none."""
    if not any(BASE_TEST in t.meta for t in tests):
        return None
    return next((i for i, t in enumerate(tests) if not t.meta.get(BASE_TEST)), len(tests))


def _base_rates(rows: list[dict[str, Any]], positions: list[int], base: int) -> dict[str, float]:
    """TPR and TNR of the suite's first ``base`` tests alone, from the whole suite's rows:
    a wrong submission stops at its first failure on a sound test, so every verdict
    before that is known (and a stop inside the base is a rejection there)."""
    n = sum(1 for p in positions if p < base)
    if n == 0:
        return {}
    cut = [{**r, "verdicts": r["verdicts"][:n]} for r in rows]
    m, _ = agreement(cut, positions[:n], coverage=(), at=())
    return {f"{k}_base": m[k] for k in ("tpr", "tnr") if k in m}


def _status(row: dict[str, Any]) -> str:
    if row.get("cannot_run"):
        return CANNOT_RUN
    verdicts = row["verdicts"]
    if any(failed(v) for v in verdicts):
        return REJECT
    if any(v in ("SE", "") for v in verdicts):
        return UNDETERMINED
    return ACCEPT


# --------------------------------------------------------------------------- the runner


class AgreementRunner(Runner):
    name = "agreement"
    paper = ("CodeContests+ / CodeContests-O / AutoCode (TPR, TNR, consistency), HardTests (precision, recall), "
             "SAGA (DR, VAcc), TestCase-Eval (Fault Coverage@N, Fault Exposure)")
    summary = "labelled submissions judged by the suite: TPR/TNR, precision/recall, DR/VAcc, Coverage@N, Exposure"
    headline = "avg"
    Params = AgreementParams

    def __init__(self, sandbox: Any = None, **params: Any):
        super().__init__(sandbox, **params)
        self._lock = threading.Lock()
        self._problem_locks: dict[str, threading.Lock] = {}
        self._subs: dict[str, list[LabelledSubmission]] = {}
        self._reference: dict[str, dict[str, Any]] = {}
        self.pool = CandidatePool(self.params.candidates if "candidate" in self.params.sources else None)

    # ------------------------------------------------------------------ submissions

    def submissions(self, problem: Problem) -> list[LabelledSubmission]:
        """The labelled submissions that judge this problem's suites."""
        file = self.pool.file()
        with self._lock:
            if problem.id not in self._subs:
                extra = file.labelled(problem.id) if file is not None else []
                subs = [s for s in labelled_submissions(problem, extra) if s.source.value in self.params.sources]
                self._subs[problem.id] = subs
            return self._subs[problem.id]

    def _problem_lock(self, problem_id: str) -> threading.Lock:
        with self._lock:
            return self._problem_locks.setdefault(problem_id, threading.Lock())

    # ------------------------------------------------------------------ tasks

    def budget(self, problem: Problem) -> int:
        return self.params.budget or max(self.params.coverage or [10])

    def tasks(self, problem: Problem, method_cls: type, *, samples: int, seed: int) -> list[TaskSpec]:
        subs = self.submissions(problem)
        if not subs:
            return []
        setting = method_cls.setting
        judged = self.params.judged
        if judged == "paper":
            judged = "all" if getattr(method_cls, "judges_shown", False) else "held_out"
        keys = (lambda base: [base if samples == 1 else (f"{base}/s{i}" if base else f"s{i}") for i in range(samples)])
        if setting is Setting.SPEC_TARGET:
            wrong = [s for s in subs if s.label is Label.WRONG]
            if self.params.max_targets is not None and len(wrong) > self.params.max_targets:
                wrong = random.Random(f"{self.params.seed}:{problem.id}:targets").sample(wrong, self.params.max_targets)
            index = {w.name: j for j, w in enumerate(problem.wrong_solutions)}
            specs = []
            for target in wrong:
                task = Task.from_problem(problem, setting, budget=self.params.exposure_tests, seed=seed,
                                         target=target.program)
                context: dict[str, Any] = {"target": target.name, "judged": judged}
                if target.name in index:
                    context["wrong"] = index[target.name]
                for i, key in enumerate(keys(f"target:{target.name}")):
                    specs.append(TaskSpec(key=key, task=task, sample=i, context={**context, "sample": i}))
            return specs
        if setting in (Setting.SPEC_CORRECT, Setting.SPEC_CORRECT_WRONG):  # SAGA: + shown wrong submissions
            accepted = [s for s in subs if s.label is Label.ACCEPTED and s.source.value != "candidate"]
            if not accepted:
                return []
            rng = random.Random(f"{self.params.seed}:{problem.id}:method-correct")
            given = rng.sample(accepted, min(self.params.method_correct, len(accepted)))
            fixes = getattr(method_cls, "shown_fixes", True)
            task_of = (lambda i: Task.from_problem(problem, setting, budget=self.budget(problem), seed=seed + i,
                                                   correct=[g.program for g in given], fixes=fixes))
            return [TaskSpec(key=key, task=task_of(i), sample=i,
                             context={"given": [g.name for g in given], "judged": judged})
                    for i, key in enumerate(keys(""))]
        return [TaskSpec(key=key, task=Task.from_problem(problem, setting, budget=self.budget(problem), seed=seed + i),
                         sample=i, context={"judged": judged})
                for i, key in enumerate(keys(""))]

    # ------------------------------------------------------------------ scoring

    def cannot_score(self, suite: TestSuite) -> str | None:
        if not suite.tests:
            return "the suite has no tests"
        if not can_check(suite.oracle):
            return f"its oracle ({suite.oracle.kind.value}) cannot judge a program's output by running code"
        return None

    def judge(self, problem: Problem, tests: list[TestCase], oracle: Oracle,
              subs: list[LabelledSubmission], targets: list[str] = (), base: int | None = None) -> dict[str, Any]:
        """Judge ``subs`` with the suite; (metrics, detail) as a dict, or ``failed``.
        ``base``: the suite's first ``base`` tests are those an augmenting method started
        from (``BASE_TEST``): their own TPR/TNR are added (``tpr_base``, ``tnr_base``)."""
        judge = SuiteJudge(self.sandbox, problem, tests, oracle, checker_time_ms=self.params.checker_time_ms)
        tests_detail = [{"test": i, "usable": u.usable, **({"reason": u.reason} if u.reason else {})}
                        for i, u in enumerate(judge.uses)]
        if not judge.usable:
            reasons = sorted({u.reason for u in judge.uses})
            return {"failed": f"no usable test ({', '.join(reasons) or 'the suite has no tests'})",
                    "tests": tests_detail}
        accepted = [s for s in subs if s.label is Label.ACCEPTED]
        wrong = [s for s in subs if s.label is Label.WRONG]
        acc = judge.judge([s.program for s in accepted], stop_on=())
        runnable = [j for j in acc if j.status != CANNOT_RUN]
        sound = [p for p in range(len(judge.usable)) if all(j.verdicts[p] == "AC" for j in runnable)]
        detect = sound if self.params.detect_on == "sound" else list(range(len(judge.usable)))
        wr = judge.judge([s.program for s in wrong], stop_on=detect)
        rows = []
        for s, j in [*zip(accepted, acc), *zip(wrong, wr)]:
            rows.append({"name": s.name, "label": s.label.value, "category": s.category, "source": s.source.value,
                         "cannot_run": j.cannot_run, "verdicts": j.verdicts,
                         "notes": {str(p): note for p, note in list(j.notes.items())[:3]}})
        if "jury" in self.params.sources or "benchmark" in self.params.sources:
            # a problem's own submissions in a language tczoo does not know: counted, shown, never dropped
            for name, label, why in unrunnable_submissions(problem):
                rows.append({"name": name, "label": label.value, "category": None, "source": "jury",
                             "cannot_run": f"cannot run here: {why}", "verdicts": [""] * len(judge.usable),
                             "notes": {}})
        # the windows (Cov@N, DR@k, Fault Exposure's first test) count tests as generated: a
        # test the input screen rejected takes its place in them and detects nothing, so an
        # invalid first test is a failed attempt, never a second chance for the next one
        generated = [position(tests[u], u) for u in judge.usable]
        metrics, facts = agreement(rows, generated, coverage=self.params.coverage,
                                   detect_on=self.params.detect_on, targets=list(targets),
                                   exposure_tests=self.params.exposure_tests, at=self.params.at)
        if base is not None:
            metrics.update(_base_rates(rows, judge.usable, base))
        for r in rows:
            r["status"] = facts["status"][r["name"]]
        for i in facts["sound"]:
            tests_detail[judge.usable[i]]["sound"] = True
        return {"metrics": metrics, "rows": rows, "tests": tests_detail, "positions": judge.usable,
                "vacuous_soundness": facts["vacuous_soundness"], "exposures": facts["exposures"]}

    def _reference_key(self, problem: Problem) -> str:
        """What a reference row depends on: the golden tests, the judging of outputs,
        the limits, the submissions and the options that change a metric."""
        h = hashlib.sha256()
        for part in (problem.id, str(problem.time_limit_ms), str(problem.memory_limit_mb), problem.checker or "",
                     problem.entry_point or "",
                     problem.output_validator.model_dump_json() if problem.output_validator else "",
                     self.params.detect_on, repr(self.params.coverage), repr(self.params.at),
                     str(self.params.checker_time_ms)):
            h.update(part.encode(errors="surrogatepass") + b"\0")
        for t in problem.golden_tests:
            h.update(hashlib.sha256(f"{t.input}\0{t.output}".encode(errors="surrogatepass")).digest())
        for sub in self.submissions(problem):
            h.update(f"{sub.name}\0{sub.label.value}\0{sub.program.digest}\0".encode(errors="surrogatepass"))
        return h.hexdigest()

    def reference(self, problem: Problem) -> dict[str, Any]:
        """The jury's golden tests scored by the same path, once per problem — and once per
        process: cross-scoring makes a runner per cell, and a Kattis package's reference
        takes minutes (``_SHARED``, keyed by everything the row depends on)."""
        with self._problem_lock(problem.id):
            with self._lock:
                if problem.id in self._reference:
                    return self._reference[problem.id]
            key = self._reference_key(problem)
            with _SHARED_LOCK:
                shared = _SHARED.get(key)
            if shared is not None:
                with self._lock:
                    self._reference[problem.id] = shared
                return shared
            if not problem.golden_tests:
                result: dict[str, Any] = {"failed": "the problem has no golden tests"}
            else:
                tests = [TestCase(input=t.input, output=t.output, origin="golden") for t in problem.golden_tests]
                full = self.judge(problem, tests, Oracle(kind=OracleKind.EXPECTED_OUTPUT), self.submissions(problem))
                result = {k: v for k, v in full.items() if k in ("failed", "metrics", "vacuous_soundness")}
                if "rows" in full:
                    result["submissions"] = {r["name"]: [r["status"], _first(r)] for r in full["rows"]}
                    result["tests"] = len(tests)
                if _scoring_note(problem):
                    result["scoring"] = _scoring_note(problem)
            with self._lock:
                self._reference[problem.id] = result
            if "metrics" in result or not problem.golden_tests:
                with _SHARED_LOCK:
                    _SHARED[key] = result
            return result

    def score(self, problem: Problem, spec: TaskSpec, suite: TestSuite) -> ScoreRecord:
        given = set(spec.context.get("given") or [])
        # What the task showed the method: its correct programs, and the wrong submissions
        # (with their corrections) a spec+correct+wrong task shows (SAGA, CodeContests-O).
        # Held out (ours, and the default where the paper does not judge them): none of it
        # is judged; judged "all" (the paper's population for SAGA and CodeContests-O):
        # every labelled submission is.
        shown = spec.task.shown_programs() if spec.task is not None else set()
        everything = self.submissions(problem)
        given |= {s.name for s in everything if s.program.digest in shown}
        judged = spec.context.get("judged", "held_out")  # records made before the option: held out
        subs = everything if judged == "all" else [s for s in everything if s.name not in given]
        target = spec.context.get("target")
        record = ScoreRecord(runner=self.name, method=suite.provenance.method, model=suite.provenance.model,
                             problem_id=problem.id)
        detail: dict[str, Any] = {"oracle": suite.oracle.kind.value, "coverage": list(self.params.coverage),
                                  "at": list(self.params.at), "detect_on": self.params.detect_on,
                                  "given": sorted(given), "judged": judged,
                                  "left_out": sorted(given) if judged != "all" else [],
                                  "candidates": self.params.candidates if "candidate" in self.params.sources
                                  else None}
        if target:
            detail["target"] = target
        if _scoring_note(problem):
            detail["scoring"] = _scoring_note(problem)
        if suite.rejected:  # the tests the input screen rejected (never run): the run browser shows them
            detail["rejected"] = rejected_detail(suite.rejected)
        if spec.task is not None:
            task = spec.task
            detail["shown"] = {"correct": len(task.correct_programs), "wrong": len(task.wrong_pairs),
                               "fixes": sum(pair.fixed is not None for pair in task.wrong_pairs)}
        detail["oracle_programs"] = list(spec.context.get("given") or [])
        if self.params.reference:
            detail["reference"] = self.reference(problem)
        why = self.cannot_score(suite)
        if why and not suite.tests and suite.rejected:
            why = f"the suite has no test the problem's input check accepts ({len(suite.rejected)} rejected)"
        if why:
            detail["failed"] = why
            record.metrics, record.n_valid = {"n_tests": float(len(suite.tests))}, 0
        else:
            base = _base_count(suite.tests)
            if base is not None:
                detail["base_tests"] = base
            result = self.judge(problem, suite.tests, suite.oracle, subs, [target] if target else [], base=base)
            detail["tests"] = result["tests"]
            if "failed" in result:
                detail["failed"] = result["failed"]
                record.metrics, record.n_valid = {"n_tests": float(len(suite.tests))}, 0
            else:
                record.metrics = {"n_tests": float(len(suite.tests)), **result["metrics"]}
                record.n_valid = len(result["positions"])
                detail.update({"submissions": result["rows"], "positions": result["positions"],
                               "vacuous_soundness": result["vacuous_soundness"]})
                if target:
                    detail["exposed"] = result["exposures"].get(target)
        record.detail = detail
        return record

    # ------------------------------------------------------------------ tables

    def settings_used(self, scores: list[ScoreRecord]) -> list[tuple[str, str]]:
        """What judged the suites and what the methods were shown, read from the records:
        the labelled submissions judged (all, or held out) with their counts, the correct
        programs handed to a method as its oracle, the shown wrong submissions, the
        candidates file, the suites' sizes."""
        scores = [s for s in scores if s.runner == self.name]
        if not scores:
            return []
        by_method: dict[str, list[ScoreRecord]] = defaultdict(list)
        for s in scores:
            by_method[s.method].append(s)
        judged, oracle, shown, sizes = [], [], [], []
        for method, recs in sorted(by_method.items()):
            per_problem: dict[str, ScoreRecord] = {}
            for r in recs:
                if isinstance(r.detail.get("submissions"), list):
                    per_problem.setdefault(r.problem_id, r)
            acc = sum(sub.get("label") == Label.ACCEPTED.value for r in per_problem.values()
                      for sub in r.detail["submissions"])
            wrong = sum(sub.get("label") == Label.WRONG.value for r in per_problem.values()
                        for sub in r.detail["submissions"])
            populations = {str(r.detail.get("judged", "held_out")) for r in recs}
            left = {(r.problem_id, name) for r in recs for name in r.detail.get("left_out", r.detail.get("given", []))
                    if r.detail.get("judged", "held_out") != "all"}
            if populations == {"all"}:
                how = "every labelled submission, those shown to the method included"
            elif populations == {"held_out"}:
                how = (f"the held-out submissions ({len(left)} shown to the method left out)" if left else
                       "the held-out submissions (none was shown to the method)")
            else:
                how = "all in some suites, held out in others"
            counts = (f"{acc} accepted and {wrong} wrong judged over {len(per_problem)} problem(s)" if per_problem
                      else "no suite was judged (every suite failed)")
            judged.append(f"{method}: {how}; {counts}")
            handed = sorted({len(r.detail.get("oracle_programs") or []) for r in recs})
            if handed != [0]:
                fate = ("judged too" if populations == {"all"} else "left out of the judged submissions"
                        if populations == {"held_out"} else "left out where held out")
                oracle.append(f"{method}: {'/'.join(map(str, handed))} accepted program(s) of the problem per task "
                              f"(runner's method_correct, seeded draw), {fate}")
            seen = [r.detail.get("shown") for r in recs if isinstance(r.detail.get("shown"), dict)]
            if any(x.get("wrong") for x in seen):
                first = {r.problem_id: r.detail["shown"] for r in recs if isinstance(r.detail.get("shown"), dict)}
                c = sum(x.get("correct", 0) for x in first.values())
                w = sum(x.get("wrong", 0) for x in first.values())
                f = sum(x.get("fixes", 0) for x in first.values())
                shown.append(f"{method}: {c} correct program(s) and {w} wrong submission(s)"
                             + (f", {f} with a corrected version" if f else ", without corrections")
                             + f" over {len(first)} problem(s) (half of each problem's wrong submissions, fixed by "
                               f"hash: tczoo.schema.shown_wrong)")
            n = [float(r.metrics.get("n_tests", 0.0)) for r in recs]
            if n:
                sizes.append(f"{method}: {sum(n) / len(n):.1f} on average ({min(n):.0f}-{max(n):.0f}) over "
                             f"{len(n)} suite(s), every test the method kept")
        out = [("judged", "; ".join(judged))]
        if oracle:
            out.append(("oracle programs", "; ".join(oracle)))
        if shown:
            out.append(("shown", "; ".join(shown)))
        files = sorted({str(s.detail.get("candidates")) for s in scores if s.detail.get("candidates")})
        n_cand = sum(sub.get("source") == "candidate" for s in scores
                     for sub in (s.detail.get("submissions") or []) if isinstance(sub, dict))
        out.append(("candidates", f"{', '.join(files)}: {n_cand} labelled candidate judgement(s) over the suites"
                    if files else "none: no candidates file (only the problems' own labelled submissions)"))
        out.append(("tests per suite", "; ".join(sizes)))
        return out

    def label(self, method: str) -> str:
        return method  # the metric tables name methods as registered

    def summarize(self, scores: list[ScoreRecord]) -> list[Table]:
        from tczoo.runners.agreement_tables import summarize

        return summarize([s for s in scores if s.runner == self.name])

    # ------------------------------------------------------------------ browser

    def matrices(self, record: ScoreRecord, suite: TestSuite) -> list[Matrix]:
        """Each test's use (usable and sound, or not) and each labelled submission's
        verdicts on it. Columns are positions in the suite as generated: the record's
        indices count the tests the kernel's input check kept; those it rejected come
        last, invalid, with the validator's reason (never run)."""
        # a failed suite (no usable test, or no test the input check accepted) has no
        # submissions nor positions: its tests are shown, and why none judges anything
        tests, subs, positions = (v if isinstance(v, list) else [] for v in
                                  (record.detail.get(k) for k in ("tests", "submissions", "positions")))
        rejected = rejected_columns(record, record.detail.get("rejected"))
        if not tests and not rejected:
            return []
        scored = [int(i) for i in positions] + [int(t["test"]) for t in tests if not t.get("usable")]
        by_index = {int(t["test"]): t for t in tests}
        validity = []
        for c in scored:
            t = by_index.get(c, {})
            if not t.get("usable"):
                validity.append(["invalid", f"the oracle cannot judge it ({t.get('reason', '?')})"])
            elif t.get("sound"):
                validity.append(["valid", "usable and sound: every accepted submission passes it"])
            else:
                validity.append(["invalid", "usable, not sound: an accepted submission fails it"])
        validity += [["invalid", REJECTED_NOTE + why] for _, why in rejected]
        columns = as_generated(record, scored) + [i for i, _ in rejected]
        rows = [("validity", validity)]  # the label the browsers' tests tables read
        for s in subs:
            label = f"{s.get('name')} [{s.get('label')}{'/' + s['category'] if s.get('category') else ''}]"
            if s.get("cannot_run"):
                cells = [["CE", s["cannot_run"][:200]] for _ in scored]
            else:
                verdicts = s.get("verdicts") or []
                notes = s.get("notes") or {}
                cells = []
                for p in range(len(positions)):
                    v = verdicts[p] if p < len(verdicts) else ""
                    if v == "":
                        cells.append(["-", "not run: it had already failed a sound test"])
                    else:
                        cells.append([v, notes.get(str(p), "passed" if v == "AC" else v)])
                cells += [["-", "not judged: the oracle cannot judge this test"]
                          for _ in range(len(scored) - len(positions))]
            cells += [["-", "not run: the input check rejected this test"] for _ in rejected]
            rows.append((label, cells))
        notes = ["columns: the tests the suite's oracle can judge, in suite order, then the others, then those the "
                 "problem's input check rejected (never run); a wrong submission stops at its first failure on a "
                 "sound test, an accepted one runs every test"]
        if record.detail.get("target"):
            notes.append(f"target: {record.detail['target']} (exposed: {record.detail.get('exposed')})")
        if record.detail.get("failed"):
            notes.append(f"failed: {record.detail['failed']}")
        return [Matrix(title="labelled submissions on the suite (agreement)", tests=columns, rows=rows, notes=notes)]


SCORING_NOTE = ("a scoring problem, judged pass-fail here: a submission is accepted when it passes every test "
                "(partially accepted ones count as wrong); its group scores are benchmarks --check's")


def _scoring_note(problem: Problem) -> str | None:
    """Where the runner's pass-fail reading of a scoring problem (test groups with points)
    differs from the problem's own grading, said in every record of it."""
    kattis = problem.meta.get("kattis") if isinstance(problem.meta, dict) else None
    return SCORING_NOTE if isinstance(kattis, dict) and kattis.get("type") == "scoring" else None


def _first(row: dict[str, Any]) -> int | None:
    return next((p for p, v in enumerate(row["verdicts"]) if failed(v)), None)
