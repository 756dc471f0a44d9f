"""Test output prediction, scored as LiveCodeBench scores it (Jain et al., ICLR 2025,
arXiv:2403.07974, §3 "Test Output Prediction").

An instance is one (problem, test input): the method is given the specification and
the input (``Task.queries``; never the output) and predicts the output. A prediction is
right when it equals the test's output by LiveCodeBench's rule: the predicted
expression, evaluated, ``==`` the expected value (Python equality: ``1 == 1.0`` holds, a
list never equals a tuple, floats exactly). The expected value is read from the test's
output (JSON, as LiveCodeBench stores it, else a Python literal, as tczoo's
function-level tests do); a prediction that is a constant is compared here, any other
expression is evaluated in the sandbox, never in this process. stdin problems (our
extension) compare the predicted text by the problem's comparator or output validator.

pass@1 per instance = the share of its samples (``--samples``; LiveCodeBench: 10) that
are right; the table averages over instances (``pass@1``) and also over problems
(``pass@1 by problem``). An unanswered query (the model's answer holds no readable
assertion) counts as wrong, as in LiveCodeBench, and is counted apart; a provider
failure is not an answer: the unit's generation fails, is counted apart and is never
scored (``tczoo.failures``), as everywhere in tczoo. An
instance the benchmark makes unusable — its expected output is not a value, or its
input is not a call's arguments so the method could not ask it — is left out of both
averages and counted in the table's ``left out`` column.

Which inputs (``tests``): the problem's golden tests, in order, the first
``max_queries`` (None: every one); LiveCodeBench's own set asks about 442 tests of 181
LeetCode problems. A predictor is a method whose runner is ``outputpred``; a test
generator (``tczoo run --runner outputpred``, cross-scoring) is refused with the reason,
and a suite that answers none of the queries is never scored as 0.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any, Literal

from pydantic import Field

from tczoo.errors import InfrastructureFailure, UserError
from tczoo.parsing.asserts import decode_value
from tczoo.execution import outputs_match
from tczoo.runner import Matrix, Runner, RunnerParams, Table, TaskSpec
from tczoo.sandbox.types import Job, Limits, Verdict
from tczoo.schema import UNPOSED, Language, Problem, Program, ScoreRecord, Setting, Task, TestSuite



EXPECTED_UNREADABLE = "expected_unreadable"  # a queried test's expected output is not a value: left out
QUERY_UNPOSED = "query_unposed"  # the method could not ask the query (not a call's arguments): left out
LEFT_OUT = (EXPECTED_UNREADABLE, QUERY_UNPOSED)  # the benchmark's instance, not the model's answer, is at fault


class OutputPredParams(RunnerParams):
    tests: Literal["golden", "samples"] = Field("golden", description="where the queried inputs come from")
    max_queries: int | None = Field(None, ge=1, description="queried tests per problem, the first ones (None: all)")
    eval_time_ms: int = Field(5000, ge=100, description="CPU time for evaluating one suite's expression predictions")


class OutputPredRunner(Runner):
    name = "outputpred"
    paper = "LiveCodeBench (Jain et al., ICLR 2025) test output prediction"
    summary = "the method predicts each queried test's output; pass@1 by LiveCodeBench's equality rule"
    headline = "pass@1"
    Params = OutputPredParams
    screens_inputs = False  # the inputs are the benchmark's own tests (Task.queries), not the method's
    scores_empty_suites = True  # a predictor that answered nothing scores 0, in the denominator

    def queries(self, problem: Problem) -> list[tuple[str, str]]:
        tests = ([(t.input, t.output) for t in problem.golden_tests] if self.params.tests == "golden"
                 else [(s.input, s.output) for s in problem.samples])
        return tests[: self.params.max_queries] if self.params.max_queries else tests

    def tasks(self, problem: Problem, method_cls: type, *, samples: int, seed: int) -> list[TaskSpec]:
        if getattr(method_cls, "runner", self.name) != self.name:
            # a predictor names this runner as its own; a test generator has nothing to predict
            raise ValueError(f"outputpred scores output predictors (methods whose runner is outputpred); "
                             f"{method_cls.name} writes tests for {method_cls.runner}")
        if method_cls.setting is not Setting.SPEC:
            raise UserError(f"outputpred gives a method the specification and the inputs only; method "
                            f"{method_cls.name} asks for {method_cls.setting.value}")
        queries = self.queries(problem)
        if not queries:
            return []
        return [TaskSpec(key="" if samples == 1 else f"s{i}",
                         task=Task.from_problem(problem, Setting.SPEC, budget=len(queries), seed=seed + i)
                         .model_copy(update={"queries": [q for q, _ in queries]}),
                         sample=i)
                for i in range(samples)]

    def cannot_score(self, suite: TestSuite) -> str | None:
        # Every predictor's suite is scored (a query it does not answer is a wrong
        # prediction); a suite that answers none of the queries is refused in score().
        return None

    def score(self, problem: Problem, spec: TaskSpec, suite: TestSuite) -> ScoreRecord:
        queries = self.queries(problem)
        answer: dict[str, Any] = {}
        for t in suite.tests:
            answer.setdefault(t.input, t)  # the first prediction for an input counts
        if suite.tests and not any(q in answer for q, _ in queries):
            # a test generator's suite (cross-scoring): nothing here predicts a queried output
            raise ValueError("the suite answers none of the queried test inputs: it was not made for test output "
                             "prediction")
        functional = problem.entry_point is not None
        verdicts: list[tuple[bool, str]] = [(False, "unanswered")] * len(queries)
        literal, expressions, stdin = [], [], []
        for i, (query, expected) in enumerate(queries):
            test = answer.get(query)
            if test is not None and test.meta.get(UNPOSED):
                verdicts[i] = (False, QUERY_UNPOSED)
                continue
            if test is None or test.output is None:
                continue
            if not functional:
                stdin.append((i, query, test.output, expected))
            elif test.meta.get("expression"):
                expressions.append((i, test.output, expected))
            else:
                literal.append((i, test.output, expected))
        for i, predicted, expected in literal:
            verdicts[i] = lcb_equal(predicted, expected)
        if expressions:
            for (i, _, _), verdict in zip(expressions, self._evaluate(expressions)):
                verdicts[i] = verdict
        if stdin:
            match = outputs_match(self.sandbox, [(q, out, exp) for _, q, out, exp in stdin], comparator=problem.checker,
                                  validator=problem.output_validator)
            for (i, _, _, _), ok in zip(stdin, match):
                verdicts[i] = (bool(ok), "" if ok else ("validator_failed" if ok is None else "mismatch"))
        # a test whose expected output cannot be read, or whose input the method could not
        # ask as a call, is the benchmark's fault, not the model's: left out, counted apart
        scored = [(ok, why) for ok, why in verdicts if why not in LEFT_OUT]
        if not scored:
            raise ValueError(f"none of the {len(queries)} queried tests can be scored: an expected output that can "
                             "be read and an input the method could ask")
        right = sum(ok for ok, _ in scored)
        unanswered = sum(why == "unanswered" for _, why in scored)
        return ScoreRecord(
            runner=self.name, method=suite.provenance.method, model=suite.provenance.model, problem_id=problem.id,
            metrics={"pass@1": 100.0 * right / len(scored), "n_queries": float(len(scored)),
                     "right": float(right), "unanswered": float(unanswered), "n_valid": float(len(scored)),
                     "unreadable_expected": float(sum(why == EXPECTED_UNREADABLE for _, why in verdicts)),
                     "unposed": float(sum(why == QUERY_UNPOSED for _, why in verdicts))},
            detail={"verdicts": [[ok, why] for ok, why in verdicts], "functional": functional})

    def _evaluate(self, items: list[tuple[int, str, str]]) -> list[tuple[bool, str]]:
        """LiveCodeBench's ``eval(prediction) == expected`` for expressions. The expected
        value never enters the sandbox: a prediction that is a literal is read here
        (``ast.literal_eval``, nothing runs); any other is evaluated in the sandbox, each
        in a process of its own under its own CPU-time limit, and comes back as plain
        data (numbers, strings, bytes, None and their lists, tuples, sets, dicts, type-
        tagged where JSON would lose the type: ``evaluate_to_data``); the two values are
        compared here. An object of any other type (one whose ``==`` always answers
        True, say) is not a prediction of a value."""
        verdicts: list[tuple[bool, str] | None] = [None] * len(items)
        sent: list[tuple[int, str]] = []
        for k, (_, predicted, expected) in enumerate(items):
            if not decode_value(expected, json_first=True)[0]:
                verdicts[k] = (False, EXPECTED_UNREADABLE)
            elif decode_value(predicted, json_first=False)[0]:
                verdicts[k] = lcb_equal(predicted, expected)  # a literal: read, never run
            else:
                sent.append((k, predicted))
        values = evaluate_to_data(self.sandbox, [p for _, p in sent], time_ms=self.params.eval_time_ms)
        for (k, _), (ok, value, why) in zip(sent, values):
            if not ok:
                verdicts[k] = (False, why)
                continue
            want = decode_value(items[k][2], json_first=True)[1]
            try:
                same = bool(value == want)  # plain data on both sides: Python's own ==
            except Exception:  # noqa: BLE001 - == of plain data does not raise; nested past the stack might
                same = False
            verdicts[k] = (same, "" if same else "mismatch")
        return [v if v is not None else (False, "evaluation_failed") for v in verdicts]

    # ------------------------------------------------------------------ tables

    def summarize(self, scores: list[ScoreRecord]) -> list[Table]:
        scores = [s for s in scores if s.runner == self.name and "verdicts" in s.detail]
        if not scores:
            return []
        per: dict[tuple[str, str], dict[tuple[str, int], list[bool]]] = defaultdict(lambda: defaultdict(list))
        unanswered: dict[tuple[str, str], int] = defaultdict(int)
        left_out: dict[tuple[str, str], set[tuple[str, int]]] = defaultdict(set)
        for s in scores:
            for q, (ok, why) in enumerate(s.detail["verdicts"]):
                if why in LEFT_OUT:  # left out of every number (the benchmark's fault), counted apart
                    left_out[(s.model, s.method)].add((s.problem_id, q))
                    continue
                per[(s.model, s.method)][(s.problem_id, q)].append(bool(ok))
                unanswered[(s.model, s.method)] += why == "unanswered"
        rows = []
        for (model, method), instances in sorted(per.items()):
            rates = {k: 100.0 * sum(v) / len(v) for k, v in instances.items()}
            by_problem: dict[str, list[float]] = defaultdict(list)
            for (pid, _), r in rates.items():
                by_problem[pid].append(r)
            answers = sum(len(v) for v in instances.values())
            rows.append({"model": model, "method": method, "problems": len(by_problem), "instances": len(rates),
                         "samples": answers // max(1, len(rates)),
                         "pass@1": sum(rates.values()) / len(rates),
                         "pass@1 by problem": sum(sum(v) / len(v) for v in by_problem.values()) / len(by_problem),
                         "unanswered %": 100.0 * unanswered[(model, method)] / answers if answers else 0.0,
                         "left out": len(left_out[(model, method)])})
        notes = ["an instance: one (problem, test input); pass@1: per instance the share of samples whose predicted "
                 "output equals the test's by LiveCodeBench's rule (eval(prediction) == expected), then the mean over "
                 "instances (LiveCodeBench) — 'by problem': over each problem's instances first",
                 "left out: instances not scored because the benchmark's test cannot be used — its expected "
                 "output is not a value, or its input is not a call's arguments the method could ask",
                 "unanswered: an answer without a readable prediction (no assertion): counted wrong, as "
                 "LiveCodeBench does; a provider failure is a failed unit (counted apart), never a wrong prediction"]
        return [Table(title="Test output prediction (LiveCodeBench)",
                      columns=["model", "method", "problems", "instances", "samples", "pass@1", "pass@1 by problem",
                               "unanswered %", "left out"], rows=rows, notes=notes)]

    def matrices(self, record: ScoreRecord, suite: TestSuite) -> list[Matrix]:
        verdicts = record.detail.get("verdicts")
        if not isinstance(verdicts, list):
            return []
        cells = [["AC" if ok else "WA", "right" if ok else (why or "wrong")] for ok, why in verdicts]
        return [Matrix(title="predictions (outputpred)", tests=list(range(len(cells))), rows=[("prediction", cells)],
                       notes=["column j: the j-th queried test of the problem"])]


def lcb_equal(predicted: str, expected: str) -> tuple[bool, str]:
    """LiveCodeBench's rule for a constant prediction: the values are ``==``. The
    expected value is JSON (LiveCodeBench's outputs) or a Python literal (tczoo's)."""
    ok_p, value = decode_value(predicted, json_first=False)
    ok_e, want = decode_value(expected, json_first=True)
    if not ok_e:
        return False, EXPECTED_UNREADABLE
    if not ok_p:
        return False, "prediction_unreadable"
    try:
        return (bool(value == want), "" if value == want else "mismatch")
    except Exception:  # noqa: BLE001 - == on exotic literals
        return False, "mismatch"




# The one program that evaluates a prediction: the expression arrives on stdin (the
# expected value never does), is evaluated under a CPU-time alarm, and its value goes
# back as type-tagged JSON on the last line of stdout. The expression can print what it
# likes — at most a value it could have evaluated to, which the host then compares.
_EVALUATE = r"""import _signal, json, math, os, sys


class _TczooAlarm(BaseException):
    pass


class _NotData(Exception):
    pass


class _Sink:
    def write(self, text):
        return len(text)

    def flush(self):
        pass


def _alarm(*_):
    raise _TczooAlarm()


def _encode(value, depth=0):
    if depth > 100:
        raise _NotData("nested over 100 deep")
    kind = type(value)
    if value is None:
        return ["none"]
    if kind is bool:
        return ["bool", value]
    if kind is int:
        return ["int", hex(value)]
    if kind is float:
        return ["float", repr(value)]
    if kind is complex:
        return ["complex", repr(value.real), repr(value.imag)]
    if kind is str:
        return ["str", value]
    if kind is bytes:
        return ["bytes", value.hex()]
    if kind in (list, tuple, set, frozenset):
        return [kind.__name__, [_encode(v, depth + 1) for v in value]]
    if kind is dict:
        return ["dict", [[_encode(k, depth + 1), _encode(v, depth + 1)] for k, v in value.items()]]
    raise _NotData(kind.__name__)


def _say(obj):
    data = ("\n" + json.dumps(obj) + "\n").encode("utf-8", "surrogatepass")
    while data:
        data = data[os.write(1, data):]
    os._exit(0)


def _main():
    request = json.loads(sys.stdin.read())
    expression, limit_s = request["expression"], request["limit_s"]
    del request
    sys.stdout = sys.stderr = _Sink()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    _signal.signal(_signal.SIGPROF, _alarm)
    _signal.setitimer(_signal.ITIMER_PROF, limit_s)
    try:
        value = eval(expression, {"math": math})
        data = _encode(value)
    except _TczooAlarm:
        _say({"error": "evaluation_timeout"})
    except _NotData as exc:
        _say({"error": "not_a_value: %s" % exc})
    except BaseException as exc:
        _say({"error": "evaluation_error: %s" % type(exc).__name__})
    _signal.setitimer(_signal.ITIMER_PROF, 0)
    _say({"value": data})


_main()
"""
EVALUATE_PROGRAM = Program(code=_EVALUATE, language=Language.PYTHON, name="tczoo-evaluate")
EVAL_STARTUP_MS = 1000  # CPU time an evaluation's process gets besides the evaluation: the interpreter
_TAGS = {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}


def plain_value(node: Any, depth: int = 0) -> Any:
    """The value a type-tagged JSON node (``_EVALUATE``'s ``_encode``) stands for; plain
    Python data only. ValueError when the node is not one."""
    if depth > 101 or not isinstance(node, list) or not node or not isinstance(node[0], str):
        raise ValueError("not a tagged value")
    tag, rest = node[0], node[1:]
    try:
        if tag == "none" and not rest:
            return None
        if tag == "bool" and len(rest) == 1 and isinstance(rest[0], bool):
            return rest[0]
        if tag == "int" and len(rest) == 1 and isinstance(rest[0], str):
            return int(rest[0], 16)
        if tag == "float" and len(rest) == 1 and isinstance(rest[0], str):
            return float(rest[0])
        if tag == "complex" and len(rest) == 2 and all(isinstance(v, str) for v in rest):
            return complex(float(rest[0]), float(rest[1]))
        if tag == "str" and len(rest) == 1 and isinstance(rest[0], str):
            return rest[0]
        if tag == "bytes" and len(rest) == 1 and isinstance(rest[0], str):
            return bytes.fromhex(rest[0])
        if tag in _TAGS and len(rest) == 1 and isinstance(rest[0], list):
            return _TAGS[tag](plain_value(v, depth + 1) for v in rest[0])
        if tag == "dict" and len(rest) == 1 and isinstance(rest[0], list):
            pairs = rest[0]
            if not all(isinstance(p, list) and len(p) == 2 for p in pairs):
                raise ValueError("not a tagged value")
            return {plain_value(k, depth + 1): plain_value(v, depth + 1) for k, v in pairs}
    except (TypeError, OverflowError, RecursionError) as exc:  # an unhashable key or member
        raise ValueError(f"not a tagged value: {exc}") from None
    raise ValueError("not a tagged value")


def evaluate_to_data(sandbox: Any, expressions: list[str], *, time_ms: int) -> list[tuple[bool, Any, str]]:
    """(ok, value, failure reason) for each Python expression, each evaluated alone in
    the sandbox (``_EVALUATE``) and read back as plain data here."""
    limits = Limits(time_ms=time_ms + EVAL_STARTUP_MS, memory_mb=1024, output_kb=16 * 1024)
    jobs = [Job(program=EVALUATE_PROGRAM, stdin=json.dumps({"expression": e, "limit_s": time_ms / 1000}),
                limits=limits) for e in expressions]
    out: list[tuple[bool, Any, str]] = []
    for run in (sandbox.run_many(jobs) if jobs else []):
        if run.verdict is Verdict.SE:
            raise InfrastructureFailure(f"the sandbox failed evaluating predictions: {run.message[-300:]}")
        if run.verdict is Verdict.TLE:
            out.append((False, None, "evaluation_timeout"))
            continue
        lines = run.stdout.rstrip("\n").rsplit("\n", 1) if run.verdict is Verdict.AC else []
        try:
            said = json.loads(lines[-1]) if lines else None
        except (ValueError, RecursionError):
            said = None
        if isinstance(said, dict) and isinstance(said.get("error"), str):
            out.append((False, None, said["error"][:200]))
            continue
        try:
            if not isinstance(said, dict) or "value" not in said:
                raise ValueError("no value")
            out.append((True, plain_value(said["value"]), ""))
        except ValueError:
            out.append((False, None, "evaluation_failed"))
    return out
