"""Running HarnessLLM-style test harnesses and the programs they test, all in the sandbox.

A *harness* is model-written Python that defines ``generate_input_1() .. generate_input_5()``
(each returns a list of test inputs) and ``check_output(generated_input, captured_output)``
(raises ``AssertionError`` when an output is wrong). Nothing of it runs in this process:

- generators run in one sandboxed process per harness, each called after ``random`` was
  seeded with the round's seed and under its own CPU-time alarm; when that process dies
  as a whole (memory, ``os._exit``, a hang the alarm cannot interrupt) every generator is
  run again alone, so one bad generator costs only itself;
- ``check_output`` runs the same way: one process checks a batch of (input, output) pairs,
  each pair under its own CPU-time alarm, with a per-pair fallback when the batch dies.
  An ``AssertionError`` is a verdict (``assertion``); any other exception is a checker
  crash (``crash``); the alarm gives ``timeout``;
- programs under test run as stdin/stdout programs (any language) or, for functional
  problems, through ``Sandbox.call_python`` — one process per call, so state a buggy
  function leaves behind never leaks into the next input.

Functional (call-based) problems, ``Problem.entry_point`` set — the convention:

- a test *input* is the JSON text of an object mapping the entry point's parameter
  names to argument values (``{"nums": [1, 2]}``, as the paper's Figure 6), or of a
  JSON array of positional arguments. Keys the function does not take are dropped;
  an input that misses a required parameter is rejected when it is generated;
- the function is looked up as a top-level name, else as a method of ``Solution()``
  (LeetCode style), and called with the decoded arguments;
- its *output* is ``repr()`` of the returned value (a str, so any value can cross the
  process boundary). Two outputs are equal when they are equal as Python literals
  (``ast.literal_eval``), tuples equal to lists, floats within 1e-9 relative; outputs
  that are not literals (objects, ``inf``) compare as text;
- ``check_output`` receives the decoded input (a dict or list) and the returned value
  re-evaluated from its repr inside the sandbox (literal, or ``inf``/``nan``/``set()``;
  the repr text itself when even that fails).
"""

from __future__ import annotations

import ast
import json
import math
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Iterable

from tczoo.parsing import ParseError, extract_code
from tczoo.schema import Language, Program

GENERATOR_RE = re.compile(r"^generate_input_(\d+)$")

# Names the paper's prompt uses in annotations without always importing them.
PRELUDE = "from typing import Any, Dict, List, Optional, Tuple\nimport random\n"

# Appended to the harness: batch drivers called through Sandbox.call_python. The
# alarm is CPU time (ITIMER_PROF), so a loaded machine does not time a checker out.
_HARNESS_TAIL = r'''


class _TczooAlarm(BaseException):
    pass


def _tczoo_alarm(*_):
    raise _TczooAlarm()


def _tczoo_tail(limit=1500):
    import traceback
    return traceback.format_exc()[-limit:]


def _tczoo_guarded(fn, args, limit_s):
    import signal
    signal.signal(signal.SIGPROF, _tczoo_alarm)
    signal.setitimer(signal.ITIMER_PROF, limit_s)
    try:
        return {"ok": True, "value": fn(*args)}
    except _TczooAlarm:
        return {"ok": False, "kind": "timeout", "error": "over %.1f s of CPU time" % limit_s}
    except AssertionError as e:
        return {"ok": False, "kind": "assertion", "error": ("AssertionError: %s" % e)[:500] + "\n" + _tczoo_tail(800)}
    except BaseException:
        return {"ok": False, "kind": "crash", "error": _tczoo_tail()}
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)


def _tczoo_generate(names, seed, limit_s):
    import json, random
    out = {}
    for name in names:
        random.seed(seed)
        fn = globals().get(name)
        if not callable(fn):
            out[name] = {"ok": False, "kind": "no_function", "error": "no function %s" % name}
            continue
        res = _tczoo_guarded(fn, (), limit_s)
        if res["ok"]:
            try:
                json.dumps(res["value"])
            except (TypeError, ValueError) as e:
                res = {"ok": False, "kind": "bad_return",
                       "error": ("not JSON-serialisable: %s" % e)[:300]}
        out[name] = res
    return out


def _tczoo_decode(text):
    import ast
    try:
        return ast.literal_eval(text)
    except Exception:
        pass
    try:
        return eval(text, {"__builtins__": {}, "inf": float("inf"), "nan": float("nan"),
                           "set": set, "frozenset": frozenset})
    except Exception:
        return text


def _tczoo_check(pairs, limit_s, functional):
    import json
    results = []
    for given, captured in pairs:
        if functional:
            given, captured = json.loads(given), _tczoo_decode(captured)
        res = _tczoo_guarded(check_output, (given, captured), limit_s)
        res.pop("value", None)
        results.append(res)
    return results
'''

# Appended to a functional target: decode the arguments, call, return the repr.
_INVOKE_TAIL = r'''


def _tczoo_invoke(payload):
    import json
    args = json.loads(payload)
    fn = globals().get({entry!r})
    if not callable(fn) and isinstance(globals().get("Solution"), type):
        fn = getattr(globals()["Solution"](), {entry!r})
    if isinstance(args, dict):
        value = fn(**args)
    else:
        value = fn(*args)
    return repr(value)
'''


# --------------------------------------------------------------------------- parsing


@dataclass
class Harness:
    code: str  # the model's code, as written
    generators: list[str]  # generate_input_N names in N order, at most max_generators

    @property
    def program(self) -> Program:
        return Program(code=self.code, language=Language.PYTHON, name="harness",
                       meta={"generators": self.generators})


def _has_assert(tree: ast.AST, name: str) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return any(isinstance(n, (ast.Assert, ast.Raise)) for n in ast.walk(node))
    return False


def parse_harness(text: str, *, max_generators: int = 5) -> Harness:
    """The harness in a model's answer, or ``ParseError`` with one of the reasons
    ``no_code_block``, ``truncated``, ``syntax_error``, ``no_generators``,
    ``no_check_output``, ``checker_without_assert``.

    A ``check_output`` without any ``assert`` (or ``raise``) can never report a bug;
    the HarnessLLM authors count it as a format error, and so do we."""
    try:
        code = extract_code(text, "python", require=("def generate_input_",))
    except ParseError as exc:
        if exc.reason == "missing_definition":
            raise ParseError("no_generators", "no generate_input_N function in the code") from None
        raise
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        raise ParseError("syntax_error", f"line {exc.lineno}: {exc.msg}") from None
    names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    generators = sorted((n for n in names if GENERATOR_RE.match(n)),
                        key=lambda n: int(GENERATOR_RE.match(n).group(1)))
    if not generators:
        raise ParseError("no_generators", "no top-level generate_input_N function")
    if "check_output" not in names:
        raise ParseError("no_check_output", "no top-level check_output function")
    if not _has_assert(tree, "check_output"):
        raise ParseError("checker_without_assert", "check_output never asserts anything")
    return Harness(code=code, generators=generators[:max_generators])


def generator_names(code: str, max_generators: int = 5) -> list[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and GENERATOR_RE.match(n.name)]
    return sorted(names, key=lambda n: int(GENERATOR_RE.match(n).group(1)))[:max_generators]


# --------------------------------------------------------------------------- functional signatures


@dataclass
class Signature:
    params: list[str]
    required: list[str]
    var_kw: bool = False

    def fit(self, args: Any) -> Any:
        """Arguments the function can take, or ValueError: extra keys dropped, a
        missing required parameter refused (the authors' rule)."""
        if isinstance(args, dict):
            missing = [p for p in self.required if p not in args]
            if missing:
                raise ValueError(f"missing argument(s) {missing}")
            return args if self.var_kw else {k: v for k, v in args.items() if k in self.params}
        if isinstance(args, list):
            if len(args) < len(self.required):
                raise ValueError(f"{len(args)} positional argument(s), needs {len(self.required)}")
            return args
        raise ValueError(f"an input must be an object of arguments or a list, not {type(args).__name__}")


def signature_of(code: str, entry_point: str) -> Signature | None:
    """The entry point's parameters, read from the source (nothing is executed):
    a top-level function, else a method of class ``Solution`` (``self`` dropped)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    found, method = None, False
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            found = node
    if found is None:
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == "Solution":
                for sub in node.body:
                    if isinstance(sub, ast.FunctionDef) and sub.name == entry_point:
                        found, method = sub, True
    if found is None:
        return None
    a = found.args
    positional = [x.arg for x in a.posonlyargs + a.args]
    if method and positional:
        positional = positional[1:]
    n_default = len(a.defaults)
    required = positional[: len(positional) - n_default] if n_default else list(positional)
    required += [k.arg for k, d in zip(a.kwonlyargs, a.kw_defaults) if d is None]
    return Signature(params=positional + [k.arg for k in a.kwonlyargs], required=required,
                     var_kw=a.kwarg is not None)


# --------------------------------------------------------------------------- generators


@dataclass
class GeneratedInput:
    text: str  # stdin payload, or the JSON text of the arguments (functional)
    origin: str  # generator name
    round: int = 0


@dataclass
class GeneratorFailure:
    name: str
    reason: str  # crash, timeout, bad_return, not_a_list, empty_list, non_string_input, bad_arguments ...
    detail: str = ""


@dataclass
class GeneratorRun:
    inputs: list[GeneratedInput] = field(default_factory=list)
    failures: list[GeneratorFailure] = field(default_factory=list)
    trimmed: int = 0  # inputs past per_generator, dropped


def input_key(text: str, functional: bool) -> str:
    """Equality of test inputs: JSON arguments exactly, stdin up to whitespace runs."""
    return text if functional else " ".join(text.split())


def _harness_code(code: str) -> str:
    return PRELUDE + code + _HARNESS_TAIL


def _limits(time_ms: int, memory_mb: int, n: int = 1):
    from tczoo.sandbox import Limits

    total = time_ms * max(1, n) + 1000
    return Limits(time_ms=total, wall_ms=2 * total + 2000, memory_mb=memory_mb)


def _values_of(name: str, value: Any, functional: bool, signature: Signature | None,
               per_generator: int) -> tuple[list[str], int]:
    """Inputs (text) a generator's return value stands for; ValueError when it breaks the contract."""
    if isinstance(value, (str, dict)):
        value = [value]  # one input returned bare: lenient, it is unambiguous
    if not isinstance(value, list):
        raise ValueError("not_a_list", f"{name} returned {type(value).__name__}, not a list")
    if not value:
        raise ValueError("empty_list", f"{name} returned an empty list")
    texts = []
    for item in value:
        if functional:
            if signature is not None:
                try:
                    item = signature.fit(item)
                except ValueError as exc:
                    raise ValueError("bad_arguments", f"{name}: {exc}") from None
            elif not isinstance(item, (dict, list)):
                raise ValueError("bad_arguments", f"{name}: an input is {type(item).__name__}, not an object")
            texts.append(json.dumps(item))
        else:
            if not isinstance(item, str):
                raise ValueError("non_string_input", f"{name} returned a {type(item).__name__} among its inputs")
            texts.append(item)
    return texts[:per_generator], max(0, len(texts) - per_generator)


def run_generators(sandbox, harness_code: str, names: list[str], *, seed: int, functional: bool,
                   signature: Signature | None = None, per_generator: int = 4, time_ms: int = 5000,
                   memory_mb: int = 1024, round_: int = 0) -> GeneratorRun:
    """Call every generator once with ``random`` seeded by ``seed``; inputs in generator
    order (not deduplicated: callers pool rounds first). A generator breaking its
    contract (crash, timeout, non-list, non-string input, empty) gives nothing."""
    code = _harness_code(harness_code)
    out = GeneratorRun()
    if not names:
        return out
    res = sandbox.call_python(code, "_tczoo_generate", [names, seed, time_ms / 1000],
                              _limits(time_ms, memory_mb, len(names)))
    if res.ok and isinstance(res.value, dict):
        per_name = res.value
    else:  # the process died as a whole: one process per generator, so only the culprit pays
        calls = [(code, "_tczoo_generate", [[n], seed, time_ms / 1000], _limits(time_ms, memory_mb))
                 for n in names]
        per_name = {}
        for n, r in zip(names, call_many(sandbox, calls)):
            if r.ok and isinstance(r.value, dict) and n in r.value:
                per_name[n] = r.value[n]
            else:
                per_name[n] = {"ok": False, "kind": _call_kind(r), "error": r.error[-1500:]}
    for n in names:
        r = per_name.get(n) or {"ok": False, "kind": "crash", "error": "no result"}
        if not r.get("ok"):
            out.failures.append(GeneratorFailure(n, r.get("kind", "crash"), r.get("error", "")))
            continue
        try:
            texts, trimmed = _values_of(n, r.get("value"), functional, signature, per_generator)
        except ValueError as exc:
            reason, detail = exc.args if len(exc.args) == 2 else ("bad_return", str(exc))
            out.failures.append(GeneratorFailure(n, reason, detail))
            continue
        out.trimmed += trimmed
        out.inputs.extend(GeneratedInput(t, n, round_) for t in texts)
    return out


def _call_kind(res) -> str:
    return {"timeout": "timeout", "memory": "memory", "output": "output",
            "assertion": "crash", "no_function": "no_function"}.get(res.error_type or "", "crash")


def call_many(sandbox, calls: list[tuple[str, str, list, Any]]):
    """``Sandbox.call_python`` for each (code, function, args, limits), in order, spread
    over the sandbox's worker slots (its own ``call_many`` batch where it has one)."""
    if not calls:
        return []
    if hasattr(sandbox, "call_many"):
        from tczoo.sandbox.types import PyCall

        return sandbox.call_many([PyCall(code=c, function=f, args=a, limits=lim) for c, f, a, lim in calls])
    workers = max(1, min(len(calls), getattr(sandbox, "workers", 1)))
    if workers == 1:
        return [sandbox.call_python(c, f, a, lim) for c, f, a, lim in calls]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda call: sandbox.call_python(*call), calls))


def dedupe_inputs(items: Iterable[GeneratedInput], functional: bool, cap: int | None = None) -> list[GeneratedInput]:
    seen: set[str] = set()
    kept = []
    for it in items:
        key = input_key(it.text, functional)
        if key in seen:
            continue
        seen.add(key)
        kept.append(it)
        if cap is not None and len(kept) >= cap:
            break
    return kept


# --------------------------------------------------------------------------- programs under test


@dataclass
class Execution:
    """One run of a program (f, g or a candidate) on one input."""

    verdict: str  # "AC" (clean run), "RE", "TLE", "MLE", "OLE", "CE", "SE"
    output: str = ""  # stdout, or repr of the return value (functional)
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.verdict == "AC"


_CALL_VERDICT = {"timeout": "TLE", "memory": "MLE", "output": "OLE"}


def execute(sandbox, program: Program, inputs: list[str], *, entry_point: str | None,
            time_ms: int, memory_mb: int) -> list[Execution]:
    """Run ``program`` on every input: stdin programs through ``run_many``, functional
    ones with one ``call_python`` per input (see the module doc for the convention)."""
    from tczoo.sandbox import Job, Limits

    limits = Limits(time_ms=time_ms, memory_mb=memory_mb)
    if not inputs:
        return []
    if entry_point is None:
        jobs = [Job(program=program, stdin=s, limits=limits) for s in inputs]
        out = []
        for r in sandbox.run_many(jobs):
            detail = r.message if r.verdict.value in ("CE", "SE") else r.stderr[-800:]
            out.append(Execution(r.verdict.value, r.stdout if r.ok else "", detail))
        return out
    if program.language is not Language.PYTHON:
        return [Execution("CE", "", "functional problems need Python programs")] * len(inputs)
    code = program.code + _INVOKE_TAIL.format(entry=entry_point)
    results = call_many(sandbox, [(code, "_tczoo_invoke", [s], limits) for s in inputs])
    out = []
    for r in results:
        if r.ok and isinstance(r.value, str):
            out.append(Execution("AC", r.value))
        elif r.run.verdict.value == "SE":
            out.append(Execution("SE", "", r.error[-800:]))
        else:
            out.append(Execution(_CALL_VERDICT.get(r.error_type or "", "RE"), "", r.error[-800:]))
    return out


# --------------------------------------------------------------------------- comparing outputs


def _literal(text: str) -> tuple[bool, Any]:
    try:
        return True, ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def same_output(a: str, b: str, *, functional: bool, comparator: str | None = None) -> bool:
    """Outputs equal: stdin programs by the problem's comparator (tokens by default),
    functional ones as Python values (module doc)."""
    if not functional:
        from tczoo.sandbox import compare_outputs

        return compare_outputs(a, b, comparator)
    if a == b:
        return True
    ok_a, va = _literal(a)
    ok_b, vb = _literal(b)
    return ok_a and ok_b and _same_value(va, vb)


# --------------------------------------------------------------------------- checking outputs


@dataclass
class Check:
    ok: bool
    kind: str = "pass"  # pass, assertion, crash, timeout, mismatch (expected-output oracle)
    detail: str = ""


def check_with_harness(sandbox, harness_code: str, pairs: list[tuple[str, str]], *, functional: bool,
                       time_ms: int = 5000, memory_mb: int = 1024, batch: int = 40) -> list[Check]:
    """``check_output(input, output)`` for every pair, in the sandbox; identical pairs
    are checked once. Each pair has ``time_ms`` of CPU time; a batch whose process dies
    as a whole is checked again pair by pair."""
    unique: dict[tuple[str, str], int] = {}
    for p in pairs:
        unique.setdefault(p, len(unique))
    todo = list(unique)
    code = _harness_code(harness_code)
    chunks = [todo[i:i + batch] for i in range(0, len(todo), batch)]
    calls = [(code, "_tczoo_check", [[list(p) for p in c], time_ms / 1000, functional],
              _limits(time_ms, memory_mb, len(c))) for c in chunks]
    verdicts: dict[tuple[str, str], Check] = {}
    retry: list[tuple[str, str]] = []
    for chunk, res in zip(chunks, call_many(sandbox, calls)):
        if res.ok and isinstance(res.value, list) and len(res.value) == len(chunk):
            for p, r in zip(chunk, res.value):
                verdicts[p] = Check(bool(r.get("ok")), "pass" if r.get("ok") else r.get("kind", "crash"),
                                    (r.get("error") or "")[-1500:])
        else:
            retry.extend(chunk)
    if retry:
        single = [(code, "_tczoo_check", [[list(p)], time_ms / 1000, functional], _limits(time_ms, memory_mb))
                  for p in retry]
        for p, res in zip(retry, call_many(sandbox, single)):
            if res.ok and isinstance(res.value, list) and res.value:
                r = res.value[0]
                verdicts[p] = Check(bool(r.get("ok")), "pass" if r.get("ok") else r.get("kind", "crash"),
                                    (r.get("error") or "")[-1500:])
            else:
                kind = "timeout" if res.error_type == "timeout" else "crash"
                verdicts[p] = Check(False, kind, res.error[-1500:])
    return [verdicts[p] for p in pairs]


def check_with_expected(pairs: list[tuple[str, str]], *, functional: bool,
                        comparator: str | None = None) -> list[Check]:
    """Input-output oracle: (output, expected) pairs compared here (plain data, no code)."""
    return [Check(True) if same_output(out, exp, functional=functional, comparator=comparator)
            else Check(False, "mismatch") for out, exp in pairs]
