"""Which of a suite's test inputs are inputs of the problem at all: the screen every
suite passes before any runner scores it.

A test generator is measured, and trained, by the numbers its suites earn, so it is an
adversary of its own score: an empty input on which correct codes print nothing and
wrong codes crash "hacks" them; an input five times over a bound "slows down" a
solution. A real judge never runs an input its validator rejects (ICPC/Kattis,
DOMjudge; HardTests, CodeContests+ and AutoCode validate inputs too), and neither does
tczoo: ``tczoo.runner.score_suite`` screens every suite with ``screen_inputs`` and
hands the runner only the inputs that pass; the others travel beside them
(``TestSuite.rejected``) to be counted and shown, never scored.

How an input is checked, by what the problem has (``InputCheck.by``):

==============  =====================================================================
``validator``   the problem's own input validators (Kattis protocol: every one must
                exit 42 on it; ``tczoo.sandbox.validators``). zoo-mini and the Kattis
                packages have them.
``signature``   a function-level problem: the arguments must fit the entry point's
                parameters (count and names) and the types its annotations state
                (``int``, ``float``, ``str``, ``bool``, ``list[...]``, ``dict[...]``,
                ``tuple[...]``, ``Optional``/``Union``, ``Any``), read from the
                statement or a reference solution, never executed.
``reference``   the named option ``strict_inputs`` where the problem has no validator:
                the problem's reference solution must exit normally and print
                something on the input (the paper's own rule does not ask this).
``none``        nothing checks them (a benchmark without validators, the paper's rule
                applies): reports say so in their header.
==============  =====================================================================

A validator that cannot be run (the sandbox failed: ``SE``) decides nothing: the whole
screen raises ``InfrastructureFailure``, as any run of ours that failed does. A validator
that crashes, runs out of time or exits otherwise on an input has not confirmed it
valid: rejected, as the Kattis format says.
"""

from __future__ import annotations

import ast
import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from tczoo.errors import InfrastructureFailure
from tczoo.sandbox.types import Job, Limits, Verdict
from tczoo.sandbox.validators import input_judgement, input_validator_job
from tczoo.schema import InputCheck, Problem, ScoreRecord, TestCase, TestSuite

if TYPE_CHECKING:
    from tczoo.runner import Runner, TaskSpec
    from tczoo.sandbox import Sandbox

INVALID_INPUT = "invalid_input"  # TestCase.meta key of a rejected test: why it was rejected
INDEX = "index"  # TestCase.meta key of a rejected test: its position in the suite as generated
REASONS_KEPT = 5  # distinct rejection reasons an InputCheck keeps (the rest are counted)


@dataclass
class Screened:
    """The outcome of a screen: the positions (in the suite as generated) of the inputs
    kept, the rejected tests with their reasons, and the record of how it was done."""

    kept: list[int]
    rejected: list[TestCase]
    check: InputCheck
    reasons: list[str] = field(default_factory=list)  # index-aligned with ``rejected``
    # position -> the input a runner runs instead (a validator's leniency taken away)
    canonical: dict[int, str] = field(default_factory=dict)


# --------------------------------------------------------------------------- the cache

class _Verdicts:
    """Verdicts of validators on inputs, kept for this process (a run scores a suite,
    ``tczoo score`` scores it again, analyses rescore it many ways): bounded LRU keyed
    by what the verdict depends on (the validators' programs, flags and limits, and the
    input's digest)."""

    def __init__(self, size: int = 200_000):
        self._size = size
        self._data: OrderedDict[tuple[str, str], tuple[bool, str]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> tuple[bool, str] | None:
        with self._lock:
            found = self._data.get(key)
            if found is not None:
                self._data.move_to_end(key)
            return found

    def put(self, key: tuple[str, str], value: tuple[bool, str]) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self._size:
                self._data.popitem(last=False)


_VERDICTS = _Verdicts()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# --------------------------------------------------------------------------- stdin: validators


def canonical_text(text: str) -> str:
    """``text`` without what a lenient validator lets through and a program need not read:
    blanks and carriage returns at line ends, a missing final newline."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return "\n".join(line.rstrip(" \t\r") for line in lines) + "\n"


def _canonical(problem: Problem, inputs: list[str], kept: list[int], sandbox: "Sandbox") -> dict[int, str]:
    """The kept inputs that differ from their canonical text and whose canonical text the
    validators accept too: the runner runs that instead, so that leniency (50 MB of
    trailing blanks on a valid input) buys no slowdown and no crash."""
    differ = {i: canonical_text(inputs[i]) for i in kept if canonical_text(inputs[i]) != inputs[i]}
    if not differ:
        return {}
    verdicts = _by_validators(problem, list(differ.values()), sandbox)
    return {i: text for (i, text), (ok, _) in zip(differ.items(), verdicts) if ok}


def _by_validators(problem: Problem, inputs: list[str], sandbox: "Sandbox") -> list[tuple[bool, str]]:
    validators = list(problem.input_validators)
    which = _digest(json.dumps([[v.program.digest, v.args, v.time_limit_ms, v.memory_limit_mb]
                                for v in validators]))
    keys = [(which, _digest(text)) for text in inputs]
    answers: dict[int, tuple[bool, str]] = {}
    todo: dict[tuple[str, str], int] = {}
    for i, key in enumerate(keys):
        found = _VERDICTS.get(key)
        if found is not None:
            answers[i] = found
        elif key not in todo:
            todo[key] = i
    jobs: list[Job] = [input_validator_job(v, inputs[i]) for i in todo.values() for v in validators]
    runs = list(sandbox.run_many(jobs)) if jobs else []
    failed = [r for r in runs if r.verdict is Verdict.SE]
    if failed:
        raise InfrastructureFailure(f"{len(failed)} run(s) of the problem's input validator met a sandbox error: "
                                    + " ".join((failed[0].message or "").split())[:300])
    for n, (key, i) in enumerate(todo.items()):
        verdict: tuple[bool, str] = (True, "")
        for v, run in zip(validators, runs[n * len(validators):(n + 1) * len(validators)]):
            ok, reason = input_judgement(run, v.program.name)
            if not ok:
                verdict = (False, reason)
                break
        _VERDICTS.put(key, verdict)
        answers[i] = verdict
    return [answers[i] if i in answers else answers[todo[keys[i]]] for i in range(len(inputs))]


# --------------------------------------------------------------------------- stdin: the reference (strict_inputs)


def reference_solution(problem: Problem):
    """The problem's reference solution: the one its ``meta["reference"]`` names, else
    the first accepted one (None when it has none)."""
    named = problem.meta.get("reference")
    for s in problem.solutions:
        if named and (s.name == named or s.name.rsplit("/", 1)[-1] == str(named).rsplit("/", 1)[-1]):
            return s
    return problem.solutions[0] if problem.solutions else None


def _by_reference(problem: Problem, inputs: list[str], sandbox: "Sandbox") -> list[tuple[bool, str]]:
    from tczoo.execution.programs import run_programs

    reference = reference_solution(problem)
    if reference is None:
        return [(True, "")] * len(inputs)
    rows = run_programs(sandbox, [reference], inputs, limits=Limits.of(problem), entry_point=problem.entry_point)
    failed = [row[0] for row in rows if row[0].verdict is Verdict.SE]
    if failed:
        raise InfrastructureFailure("the reference solution met a sandbox error while screening inputs: "
                                    + " ".join(failed[0].detail.split())[:300])
    out = []
    for [ex] in rows:
        if not ex.ok:
            out.append((False, f"the reference solution did not run cleanly on it ({ex.verdict.value})"))
        elif not ex.output.strip():
            out.append((False, "the reference solution printed nothing on it"))
        else:
            out.append((True, ""))
    return out


# --------------------------------------------------------------------------- function level: the signature


@dataclass
class _Param:
    name: str
    annotation: ast.expr | None
    required: bool


@dataclass
class FunctionSignature:
    """An entry point's parameters and their annotations, read from source."""

    params: list[_Param]
    var_args: bool = False
    var_kw: bool = False

    def check(self, payload: str) -> str | None:
        """Why the JSON arguments ``payload`` cannot be a call of this function, or None."""
        try:
            args = json.loads(payload)
        except (ValueError, RecursionError):
            try:  # a Python literal, as the call itself reads one (tuples, sets)
                args = ast.literal_eval(payload)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as exc:
                return f"the arguments are neither JSON nor a Python literal ({type(exc).__name__})"
        if isinstance(args, dict):
            bound: dict[str, Any] = {}
            names = {p.name for p in self.params}
            unknown = [k for k in args if k not in names]
            if unknown and not self.var_kw:
                return f"unknown argument(s) {unknown[:3]}"
            bound = {k: v for k, v in args.items() if k in names}
        elif isinstance(args, (list, tuple)):
            if len(args) > len(self.params) and not self.var_args:
                return f"{len(args)} argument(s) for {len(self.params)} parameter(s)"
            bound = {p.name: v for p, v in zip(self.params, args)}
        else:
            return f"the arguments must be a list or an object, not {type(args).__name__}"
        missing = [p.name for p in self.params if p.required and p.name not in bound]
        if missing:
            return f"missing argument(s) {missing[:3]}"
        for p in self.params:
            if p.name in bound and p.annotation is not None:
                why = _fits(bound[p.name], p.annotation, depth=0)
                if why:
                    return f"argument {p.name}: {why}"
        return None


def _function(code: str, entry_point: str) -> ast.FunctionDef | None:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            return node
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Solution":
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef) and sub.name == entry_point:
                    sub.args.args = sub.args.args[1:]  # self
                    return sub
    return None


def function_signature(problem: Problem) -> FunctionSignature | None:
    """The entry point's signature, from the statement (HumanEval's prompt is the code's
    head) or else a reference solution; None when neither has it."""
    if not problem.entry_point:
        return None
    sources = [problem.statement + "\n    pass\n", problem.statement] + [s.code for s in problem.solutions[:3]]
    for code in sources:
        node = _function(code, problem.entry_point)
        if node is None:
            continue
        a = node.args
        positional = list(a.posonlyargs) + list(a.args)
        n_required = len(positional) - len(a.defaults)
        params = [_Param(x.arg, x.annotation, i < n_required) for i, x in enumerate(positional)]
        params += [_Param(k.arg, k.annotation, d is None) for k, d in zip(a.kwonlyargs, a.kw_defaults)]
        return FunctionSignature(params, var_args=a.vararg is not None, var_kw=a.kwarg is not None)
    return None


_SCALARS = {"int", "float", "str", "bool", "complex", "bytes", "None", "NoneType"}


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):  # typing.List
        return node.attr
    if isinstance(node, ast.Constant) and node.value is None:
        return "None"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a string annotation
        try:
            return _name(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return ""
    return ""


def _fits(value: Any, ann: ast.expr, depth: int) -> str | None:
    """Why JSON ``value`` is not of annotation ``ann`` (None: it fits, or the annotation
    says nothing we can check). JSON has lists where Python has tuples and sets."""
    if depth > 20:
        return None
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            ann = ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):  # int | None
        options = [ann.left, ann.right]
        return None if any(_fits(value, o, depth + 1) is None for o in options) else \
            f"{_show(value)} is none of {ast.unparse(ann)}"
    if isinstance(ann, ast.Subscript):
        head = _name(ann.value).lower()
        inner = ann.slice
        items = list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]
        if head in ("optional",):
            return None if value is None else _fits(value, items[0], depth + 1)
        if head == "union":
            return None if any(_fits(value, o, depth + 1) is None for o in items) else \
                f"{_show(value)} is none of {ast.unparse(ann)}"
        if head in ("list", "sequence", "iterable", "set", "frozenset", "collection"):
            if not isinstance(value, (list, tuple, set, frozenset)):
                return f"{_show(value)} is not a list"
            for x in value:
                why = _fits(x, items[0], depth + 1)
                if why:
                    return why
            return None
        if head == "tuple":
            if not isinstance(value, (list, tuple)):
                return f"{_show(value)} is not a tuple"
            if len(items) == 2 and isinstance(items[1], ast.Constant) and items[1].value is Ellipsis:
                return next((w for x in value if (w := _fits(x, items[0], depth + 1))), None)
            if len(items) != len(value):
                return f"a tuple of {len(value)} for {ast.unparse(ann)}"
            return next((w for x, a in zip(value, items) if (w := _fits(x, a, depth + 1))), None)
        if head in ("dict", "mapping"):
            if not isinstance(value, dict):
                return f"{_show(value)} is not a dict"
            if len(items) == 2:
                return next((w for x in value.values() if (w := _fits(x, items[1], depth + 1))), None)
            return None
        return None
    name = _name(ann)
    if name in ("List", "list", "Set", "set") and not isinstance(value, (list, tuple, set, frozenset)):
        return f"{_show(value)} is not a list"
    if name in ("Dict", "dict") and not isinstance(value, dict):
        return f"{_show(value)} is not a dict"
    if name in ("Tuple", "tuple") and not isinstance(value, (list, tuple)):
        return f"{_show(value)} is not a tuple"
    if name not in _SCALARS:
        return None  # a class, a TypeVar, Any: nothing checkable here
    if name in ("None", "NoneType"):
        return None if value is None else f"{_show(value)} is not None"
    if name == "bool":
        return None if isinstance(value, bool) else f"{_show(value)} is not a bool"
    if name == "int":
        return None if isinstance(value, int) and not isinstance(value, bool) else f"{_show(value)} is not an int"
    if name == "float":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return None if ok else f"{_show(value)} is not a float"
    if name == "str":
        return None if isinstance(value, str) else f"{_show(value)} is not a str"
    return None


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# --------------------------------------------------------------------------- the screen


def check_kind(problem: Problem, *, strict: bool = False) -> str:
    """How ``problem``'s inputs are checked (``InputCheck.by``)."""
    if problem.entry_point:
        return "signature" if function_signature(problem) is not None else "none"
    if problem.input_validators:
        return "validator"
    if strict and problem.solutions:
        return "reference"
    return "none"


def screen_inputs(problem: Problem, tests: list[TestCase], sandbox: "Sandbox", *,
                  strict: bool = False) -> Screened:
    """Screen ``tests`` (in the order generated) for ``problem``; see the module
    docstring. ``strict``: the named option ``strict_inputs``."""
    by = check_kind(problem, strict=strict)
    inputs = [t.input for t in tests]
    if by == "validator":
        verdicts = _by_validators(problem, inputs, sandbox) if inputs else []
    elif by == "reference":
        verdicts = _by_reference(problem, inputs, sandbox) if inputs else []
    elif by == "signature":
        sig = function_signature(problem)
        assert sig is not None
        verdicts = []
        for text in inputs:
            why = sig.check(text)
            verdicts.append((why is None, f"does not fit {problem.entry_point}'s signature: {why}" if why else ""))
    else:
        verdicts = [(True, "")] * len(inputs)
    screened = _screened(by, tests, verdicts)
    if by == "validator":
        screened.canonical = _canonical(problem, inputs, screened.kept, sandbox)
    return screened


def _screened(by: str, tests: list[TestCase], verdicts: Iterable[tuple[bool, str]]) -> Screened:
    kept, rejected, reasons = [], [], []
    for i, (test, (ok, reason)) in enumerate(zip(tests, verdicts)):
        if ok:
            kept.append(i)
            continue
        reason = reason or "rejected"
        rejected.append(test.model_copy(update={"meta": {**test.meta, INVALID_INPUT: reason[:500], INDEX: i}}))
        reasons.append(reason)
    distinct = list(dict.fromkeys(r[:200] for r in reasons))
    check = InputCheck(by=by, tests=len(tests), rejected=len(rejected), reasons=distinct[:REASONS_KEPT])
    return Screened(kept=kept, rejected=rejected, check=check, reasons=reasons)


def total_tests(n_scored: int, check: InputCheck | None) -> int:
    """Tests a suite held as generated: those scored and those the screen rejected."""
    return n_scored + (check.rejected if check is not None else 0)


def score_suite(runner: "Runner", problem: Problem, spec: "TaskSpec", suite: TestSuite, *,
                strict_inputs: bool = False, **extra: Any) -> ScoreRecord:
    """The one way a suite is scored (``tczoo run``, ``tczoo score``, rewards, analyses,
    cross-scoring): its inputs are screened with the problem's input check
    (``tczoo.execution.screen``), the runner scores the tests that pass — the others
    ride along in ``suite.rejected``, never run, never scored — and the record says how
    inputs were checked and how many were rejected (``ScoreRecord.input_check``).
    ``extra`` goes to the runner's ``score`` (an analysis's fixed validators)."""
    if not runner.screens_inputs:
        return runner.score(problem, spec, suite, **extra)
    screened = screen_inputs(problem, suite.tests, runner.sandbox, strict=strict_inputs)
    seen = suite
    if screened.rejected or screened.canonical:
        tests = positioned(suite.tests, screened.kept)
        for test, i in zip(tests, screened.kept):
            if i in screened.canonical:
                test.input = screened.canonical[i]
        seen = suite.model_copy(update={"tests": tests, "rejected": screened.rejected})
    if screened.rejected:
        screened.check.kept = screened.kept
    record = runner.score(problem, spec, seen, **extra)
    record.input_check = screened.check
    return record


def scored_view(record: ScoreRecord, suite: TestSuite) -> TestSuite:
    """The suite as the runner saw it when it made ``record`` (its indices refer to
    this): the tests the input screen kept, the rejected ones beside them. Read from the
    record alone (no validator runs again)."""
    check = record.input_check
    if check is None or check.kept is None:
        return suite
    if any(i >= len(suite.tests) for i in check.kept):
        return suite  # not this record's suite: shown as generated
    kept = set(check.kept)
    rejected = [t.model_copy(update={"meta": {**t.meta, INDEX: i}}) for i, t in enumerate(suite.tests) if i not in kept]
    return suite.model_copy(update={"tests": positioned(suite.tests, check.kept), "rejected": rejected})


def positioned(tests: list[TestCase], kept: list[int]) -> list[TestCase]:
    """The kept tests, each a copy whose ``meta[INDEX]`` is its position as generated
    (a runner that takes a budget's prefix of the suite as generated reads it)."""
    return [tests[i].model_copy(update={"meta": {**tests[i].meta, INDEX: i}}) for i in kept]


def position(test: TestCase, fallback: int) -> int:
    """A test's position in its suite as generated (``fallback`` when nothing was rejected)."""
    index = test.meta.get(INDEX)
    return index if isinstance(index, int) and not isinstance(index, bool) else fallback


# --------------------------------------------------------------------------- the run browser

REJECTED_NOTE = "the input check rejected it, never run: "  # a rejected test's cell in the run browser, + why


def rejected_detail(rejected: Iterable[TestCase]) -> list[dict[str, Any]]:
    """What a score record keeps of the tests the input screen rejected, for the run
    browser (``rejected_columns``): each one's position as generated and why."""
    return [{"index": position(t, -1), "reason": str(t.meta.get(INVALID_INPUT, ""))[:500]} for t in rejected]


def as_generated(record: ScoreRecord, indices: Iterable[int]) -> list[int]:
    """The positions as generated of the tests ``record`` numbers ``indices``: a runner
    numbers the tests of the suite it scored, those the input screen kept
    (``InputCheck.kept``); a run-browser column names a test as generated
    (``tczoo.runner.Matrix.tests``)."""
    kept = record.input_check.kept if record.input_check is not None else None
    return [kept[i] if kept is not None and 0 <= i < len(kept) else i for i in indices]


def rejected_columns(record: ScoreRecord, stored: Any = None) -> list[tuple[int, str]]:
    """(position as generated, why) of each test the input screen rejected before the
    runner made ``record``, for the run browser: from ``stored`` (what the runner kept
    with ``rejected_detail``) or, in a record made without it, from ``record.input_check``
    (the positions it did not keep; the reason itself where every rejection had the
    same one, else the record's reasons, said to be the record's)."""
    if isinstance(stored, list):
        return [(r["index"], str(r.get("reason") or "?")) for r in stored
                if isinstance(r, dict) and isinstance(r.get("index"), int) and not isinstance(r["index"], bool)
                and r["index"] >= 0]
    check = record.input_check
    if check is None or check.kept is None or not check.rejected:
        return []
    kept = set(check.kept)
    if len(check.reasons) == 1:
        why = check.reasons[0]
    else:
        why = "not recorded per test; this suite's reasons: " + ("; ".join(check.reasons) or "?")
    return [(i, why) for i in range(check.tests) if i not in kept]


__all__ = ["FunctionSignature", "INDEX", "INVALID_INPUT", "REJECTED_NOTE", "Screened", "as_generated", "check_kind",
           "function_signature", "position", "positioned", "reference_solution", "rejected_columns",
           "rejected_detail", "score_suite", "scored_view", "screen_inputs", "total_tests"]

