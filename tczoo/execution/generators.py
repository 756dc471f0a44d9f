"""Running model-written input generators: the one driver every method uses.

A generator is a Python function the model wrote; each *call* seeds ``random`` with
``call_seed(seed, name, i)`` (so call ``i`` of a generator is reproducible, different
calls and different generators give different inputs) and returns either one input (``returns="one"``:
LCB's ``generate()``) or a list of inputs (``returns="list"``: an edge-case generator,
HarnessLLM's ``generate_input_N()``).

All calls of one round that share a program run in **one** sandboxed process, each
under its own CPU-time alarm; when that process dies as a whole (memory, ``os._exit``,
a loop the alarm cannot interrupt, a sleep) every call of it runs again alone, so one
bad call costs only itself. The process's limits are **one call's** (``time_ms`` of CPU
plus ``CALL_SLACK_MS`` for the interpreter, and that wall guard), however many calls it
makes: the alarm is the generator's own code's to disable, so a shared process with the
calls' limits added up let one call run for all of them (50 calls of a sleeper: 50 times
the limit). A batch of honest calls that together outgrow one call's limit is run again
call by call (at most twice the work). The calls run again alone go in waves of one per
worker slot per generator, and a generator whose call fails alone makes no more calls
(it is retired at that call anyway): a sleeping generator costs two of its wall limits,
not one per call. A generator that crashes, hangs, exhausts memory, prints too much
or returns something unusable is *retired* with the failure recorded; the others go on.
A generator that stops giving new inputs is retired as ``exhausted``.

Inputs are deduplicated across all generators (``input_key``); for functional problems
an input is a JSON object of arguments, fitted to the entry point's ``Signature``.

A generator can also be driven by *commands* (``run_commands``), the way a testlib
generator is run by a test plan: one program, a list of argument lines
(``n=100000 mode=max``), each line parsed into keyword arguments and the program's
``generate(args)`` called once per line with ``random`` seeded from the line's text
(``command_seed``: the same line always gives the same input, as testlib seeds ``rnd``
from the command line). The agents of ``tczoo.agent`` run their generators so.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from tczoo.execution.calls import CALL_FAILURE_REASONS, with_prelude
from tczoo.execution.programs import Signature
from tczoo.parsing.text import ParseError, as_stdin
from tczoo.sandbox.types import Limits, PyCall, Verdict
from tczoo.schema import Artifact, Failure, GeneratorSpec, Language, Program, TestCase, input_key

if TYPE_CHECKING:
    from tczoo.sandbox import Sandbox

# Appended to the generator's code: call each (function, seed) under its own CPU-time
# alarm (ITIMER_PROF: a loaded machine does not time a generator out) and return one
# result per call. JSON-serialisability is checked per call, so one bad value costs
# only that call.
_DRIVER_TAIL = r'''


class _TczooAlarm(BaseException):
    pass


def _tczoo_generate_calls(calls, limit_s):
    import json, random, signal, traceback

    def alarm(*_):
        raise _TczooAlarm()

    out = []
    for call in calls:
        name, seed, args = call[0], call[1], call[2:]
        fn = globals().get(name)
        if not callable(fn):
            out.append({"ok": False, "kind": "no_function", "error": "no function %s" % name})
            continue
        random.seed(seed)
        signal.signal(signal.SIGPROF, alarm)
        signal.setitimer(signal.ITIMER_PROF, limit_s)
        try:
            value = fn(*args)
            res = {"ok": True, "value": value}
        except _TczooAlarm:
            res = {"ok": False, "kind": "timeout", "error": "over %.1f s of CPU time" % limit_s}
        except BaseException:
            res = {"ok": False, "kind": "crash", "error": traceback.format_exc()[-1500:]}
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        if res["ok"]:
            try:
                json.dumps(res["value"])
            except (TypeError, ValueError) as e:
                res = {"ok": False, "kind": "bad_return", "error": ("not JSON-serialisable: %s" % e)[:300]}
        out.append(res)
    return out
'''

_WHOLE_PROCESS_REASON = {"timeout": "timeout", "memory": "memory", "output": "output_too_large"}
# What a call's result, read from the generator's own process, may say: the driver's kinds
# only. "sandbox_error" (an infrastructure failure, which fails the unit as not the
# model's doing) is the host's word alone (``_whole_process_failure``), never the process's.
_DRIVER_KINDS = frozenset({"no_function", "timeout", "crash", "bad_return"})
CALL_SLACK_MS = 1000  # CPU a generator process gets beyond one call's limit (interpreter, driver)
SKIPPED = "skipped"  # a call not made: its generator failed an earlier call (and is retired there)


def call_seed(seed: int, name: str, index: int) -> int:
    """The seed of call ``index`` of the generator called ``name`` in a run seeded with ``seed``."""
    return (zlib.crc32(f"{seed}:{name}".encode()) * 1_000 + index) % (2**31 - 1)


@dataclass
class Generator:
    """A model-written function that makes test inputs, and what running it gave."""

    name: str  # unique among the generators of one run ("random-0", "generate_input_2")
    code: str
    function: str
    origin: str = ""  # TestCase.origin of its inputs
    returns: Literal["one", "list"] = "one"
    role: str = "generator"  # the stage its failures are recorded under
    tests: list[TestCase] = field(default_factory=list)
    calls: int = 0
    failures: list[Failure] = field(default_factory=list)
    retired: str = ""  # why it is no longer called ("" while live)
    trimmed: int = 0  # inputs past per_call in a list, dropped

    def note(self) -> str:
        text = f"{len(self.tests)} inputs from {self.calls} calls"
        if self.retired == "exhausted":
            text += "; stopped giving new inputs"
        elif self.retired and self.retired != "done":
            text += f"; retired: {self.retired}"
        return text


def run_generators(sandbox: "Sandbox", generators: list[Generator], *, seed: int, per_generator: int,
                   time_ms: int = 5000, memory_mb: int = 1024, rounds: int = 3, per_call: int | None = None,
                   max_input_kb: int = 4096, functional: bool = False, signature: Signature | None = None,
                   strings_only: bool = False, keep_blank: bool = False,
                   seen: set[str] | None = None, dedupe: bool = True) -> list[Generator]:
    """Call the generators round by round until each has given ``per_generator`` new
    inputs, stopped giving new ones, failed, or ``rounds`` rounds have run. A ``"list"``
    generator is called once per round and keeps the first ``per_call`` inputs of each
    list. A blank input is dropped (``empty_input``) unless ``keep_blank`` (HarnessLLM
    judges such an input like any other: a ground truth that crashes on it makes the
    test invalid). ``seen`` (input keys) is shared with the caller to deduplicate
    across runs; ``dedupe=False`` keeps every input as its call gave it (the caller
    orders and deduplicates them its own way).
    Fills and returns ``generators``."""
    seen = seen if seen is not None else set()
    for _ in range(rounds):
        planned: list[tuple[Generator, int]] = []
        for g in generators:
            need = per_generator - len(g.tests)
            if g.retired or need <= 0:
                continue
            for _ in range(1 if g.returns == "list" else need):
                planned.append((g, g.calls))
                g.calls += 1
        if not planned:
            break
        results = _call(sandbox, [(g.code, g.function, call_seed(seed, g.name, i)) for g, i in planned],
                        time_ms, memory_mb, max_input_kb, stops=[id(g) for g, _ in planned])
        fresh = {id(g): 0 for g in generators}
        for (g, _), res in zip(planned, results):
            if g.retired:
                continue
            if not res.get("ok"):
                _retire(g, res.get("kind", "crash"), res.get("error", ""))
                continue
            try:
                values = _inputs_of(g, res.get("value"), functional, signature, strings_only)
            except ValueError as exc:
                reason, detail = exc.args if len(exc.args) == 2 else ("bad_return", str(exc))
                _retire(g, reason, detail)
                continue
            if g.returns == "list" and per_call is not None and len(values) > per_call:
                g.trimmed += len(values) - per_call
                values = values[:per_call]
            for text in values:
                if not text.strip() and not keep_blank:
                    g.failures.append(Failure(stage=g.role, reason="empty_input", item=g.name))
                    continue
                if len(text.encode(errors="surrogatepass")) > max_input_kb * 1024:
                    # It will keep making inputs this big: retire it like one that crashed.
                    _retire(g, "input_too_large", f"input over {max_input_kb} KB "
                                                  f"({len(text.encode(errors='surrogatepass')) // 1024} KB)")
                    break
                if dedupe:
                    key = input_key(text, functional)
                    if key in seen:
                        continue
                    seen.add(key)
                fresh[id(g)] += 1
                if len(g.tests) < per_generator or g.returns == "list":
                    # origin is the family ("lcb:random"); meta names the generator itself, so
                    # that a reader can say which of the family's generators made which test
                    g.tests.append(TestCase(input=text, origin=g.origin or g.name,
                                            meta={"generator": g.name} if g.origin and g.origin != g.name else {}))
        for g in generators:
            # A generator that gave nothing new (deterministic, or a narrow edge-case
            # list) will not give more with other seeds: stop asking it.
            if not g.retired and fresh[id(g)] == 0 and len(g.tests) < per_generator:
                g.retired = "exhausted"
    return generators


def record(suite, generators: list[Generator], *, seed: int, per_call: int | None = None,
           time_ms: int = 5000, memory_mb: int = 1024, strings_only: bool = False) -> None:
    """Put each generator's failures on ``suite`` and the generator itself among its
    artifacts, with the ``GeneratorSpec`` a runner needs to call it again."""
    for g in generators:
        for f in g.failures:
            suite.provenance.failures.append(f)
        suite.artifacts.append(Artifact(
            role=g.role,
            program=Program(code=g.code, language=Language.PYTHON, name=g.name, meta={"function": g.function}),
            ok=not any(f.reason != "empty_input" for f in g.failures), note=g.note(),
            generator=GeneratorSpec(functions=[g.function], names={g.function: g.name}, returns=g.returns, seed=seed,
                                    calls={g.function: g.calls}, per_call=per_call, strings_only=strings_only,
                                    time_ms=time_ms, memory_mb=memory_mb)))


def rerun(sandbox: "Sandbox", program: Program, spec: GeneratorSpec, *, extra_rounds: int, functional: bool = False,
          signature: Signature | None = None, seen: set[str] | None = None,
          dedupe: bool = True) -> list[list[TestCase]]:
    """Call a recorded generator program again for ``extra_rounds`` more rounds,
    continuing the method's seed sequence (HarnessLLM's re-seeded scaling).

    Round ``r`` (1, 2, ...) repeats what the method did: each function is called as often
    as the method called it (``calls[f]``, at least once), with the next call indices
    ``r * calls[f] + j``. All rounds run in one batch. Returns each round's inputs,
    function by function, as TestCases with ``origin`` the generator's name and
    ``meta["round"] = r``. With ``dedupe`` the inputs are deduplicated in round order,
    against ``seen`` too; without it every input comes back as its call gave it (the
    first ``per_call`` of a list), so that a caller can pool them in another order."""
    seen = seen if seen is not None else set()
    by_round: list[list[Generator]] = []
    for r in range(1, extra_rounds + 1):
        row = []
        for f in spec.functions:
            name = spec.names.get(f, f)
            made = max(1, spec.calls.get(f, 1))
            row += [Generator(name=name, code=program.code, function=f, origin=name, returns=spec.returns,
                              calls=r * made + j) for j in range(made)]
        by_round.append(row)
    # per_generator=1 plans exactly one call per Generator (its preset call index); a
    # list generator still keeps up to per_call inputs of that call.
    run_generators(sandbox, [g for row in by_round for g in row], seed=spec.seed, per_generator=1, rounds=1,
                   per_call=spec.per_call, time_ms=spec.time_ms, memory_mb=spec.memory_mb, functional=functional,
                   signature=signature, strings_only=spec.strings_only, keep_blank=spec.keep_blank, seen=seen,
                   dedupe=dedupe)
    return [[t.model_copy(update={"meta": {"round": r}}) for g in row for t in g.tests]
            for r, row in enumerate(by_round, 1)]


# --------------------------------------------------------------------------- commands


@dataclass
class CommandRun:
    """What one command line of a generator gave: its inputs, or why it gave none."""

    command: str
    inputs: list[str] = field(default_factory=list)
    reason: str = ""  # "" when it ran: crash, timeout, memory, bad_command, bad_return, empty_input ...
    detail: str = ""
    trimmed: int = 0  # inputs past per_command, dropped

    @property
    def ok(self) -> bool:
        return not self.reason


def command_seed(seed: int, command: str) -> int:
    """The seed ``random`` gets for ``command`` in a run seeded with ``seed``: a function
    of the line's text (whitespace runs folded), as testlib seeds ``rnd`` from argv."""
    return zlib.crc32(f"{seed}:{' '.join(command.split())}".encode()) % (2**31 - 1)


def parse_command(command: str) -> dict[str, Any]:
    """A command line as keyword arguments: ``n=5 mode=max``, ``--n 5 --mode max``,
    ``-n=5`` and a bare flag (``--distinct`` → True) all read alike; values that look
    like integers or floats become numbers; words without a key collect under ``"_"``.
    ValueError on a line shlex cannot split (an open quote)."""
    import shlex

    words = shlex.split(command)
    if words and words[0] in ("./gen", "gen", "generator", "python", "./generator"):
        words = words[1:]  # a testlib habit: the program's name first
    args: dict[str, Any] = {}
    loose: list[Any] = []
    i = 0
    while i < len(words):
        word = words[i]
        if "=" in word and not word.startswith("="):
            key, value = word.split("=", 1)
            args[key.lstrip("-")] = _number(value)
        elif word.startswith("-") and len(word) > 1 and not _is_number(word):
            key = word.lstrip("-")
            if i + 1 < len(words) and (not words[i + 1].startswith("-") or _is_number(words[i + 1])) \
                    and "=" not in words[i + 1]:
                args[key] = _number(words[i + 1])
                i += 1
            else:
                args[key] = True
        else:
            loose.append(_number(word))
        i += 1
    if loose:
        args["_"] = loose
    return args


def _is_number(word: str) -> bool:
    try:
        float(word)
        return True
    except ValueError:
        return False


def _number(value: str) -> Any:
    try:
        return int(value)
    except ValueError:
        pass
    try:
        return float(value) if any(c.isdigit() for c in value) else value
    except ValueError:
        return value


def run_commands(sandbox: "Sandbox", code: str, commands: list[str], *, function: str = "generate", seed: int = 0,
                 per_command: int = 1, time_ms: int = 5000, memory_mb: int = 1024,
                 max_input_kb: int = 4096) -> list[CommandRun]:
    """``function(args)`` of ``code`` once per command line, in one sandboxed process
    (each call under its own CPU-time alarm; calls of a process that died as a whole
    run again alone). A call returns one input (a string, or a structure ``as_stdin``
    turns into one) or a list of strings: several inputs, of which the first
    ``per_command`` are kept. One ``CommandRun`` per command, in order."""
    out = [CommandRun(command=c) for c in commands]
    planned: list[tuple[int, dict[str, Any]]] = []
    for i, c in enumerate(commands):
        try:
            planned.append((i, parse_command(c)))
        except ValueError as exc:
            out[i].reason, out[i].detail = "bad_command", f"cannot split {c!r}: {exc}"
    if not planned:
        return out
    results = _call(sandbox, [(code, function, command_seed(seed, commands[i]), [args]) for i, args in planned],
                    time_ms, memory_mb, max_input_kb)
    for (i, _), res in zip(planned, results):
        run = out[i]
        if not res.get("ok"):
            run.reason, run.detail = res.get("kind", "crash"), str(res.get("error", ""))[-1500:]
            continue
        value = res.get("value")
        items = value if isinstance(value, list) and value and all(isinstance(v, str) for v in value) else [value]
        if len(items) > per_command:
            run.trimmed = len(items) - per_command
            items = items[:per_command]
        for item in items:
            try:
                text = as_stdin(item)
            except ParseError as exc:
                run.reason, run.detail = "bad_return", f"{function} returned {exc.detail}"
                break
            if not text.strip():
                run.reason, run.detail = "empty_input", f"{function} returned a blank input"
                continue
            if len(text.encode(errors="surrogatepass")) > max_input_kb * 1024:
                run.reason, run.detail = "input_too_large", (f"input over {max_input_kb} KB "
                                                             f"({len(text.encode(errors='surrogatepass')) // 1024} KB)")
                continue
            run.inputs.append(text)
        if run.inputs and run.reason == "empty_input":
            run.reason, run.detail = "", ""  # some inputs of a list were blank: the others stand
    return out


# --------------------------------------------------------------------------- internals


def _retire(g: Generator, reason: str, detail: str) -> None:
    g.retired = reason
    g.failures.append(Failure(stage=g.role, reason=reason, detail=detail[:2000], item=g.name))


def _inputs_of(g: Generator, value: Any, functional: bool, signature: Signature | None,
               strings_only: bool) -> list[str]:
    """The input texts a call's return value stands for; ValueError(reason, detail)."""
    if g.returns == "list":
        if isinstance(value, (str, dict)):
            value = [value]  # one input returned bare: lenient, it is unambiguous
        if not isinstance(value, list):
            raise ValueError("not_a_list", f"{g.function} returned {type(value).__name__}, not a list")
        if not value:
            raise ValueError("empty_list", f"{g.function} returned an empty list")
        items = value
    else:
        items = [value]
    texts = []
    for item in items:
        if functional:
            if signature is not None:
                try:
                    item = signature.fit(item)
                except ValueError as exc:
                    raise ValueError("bad_arguments", f"{g.function}: {exc}") from None
            elif not isinstance(item, (dict, list)):
                raise ValueError("bad_arguments", f"{g.function}: an input is {type(item).__name__}, not an object")
            texts.append(json.dumps(item))
        elif strings_only and not isinstance(item, str):
            raise ValueError("non_string_input", f"{g.function} returned a {type(item).__name__} among its inputs")
        else:
            try:
                texts.append(as_stdin(item))
            except ParseError as exc:
                raise ValueError(exc.reason, exc.detail) from None
    return texts


def process_limits(time_ms: int, memory_mb: int, max_input_kb: int, calls: int) -> Limits:
    """A generator process's limits: one call's time (``time_ms`` of CPU, each call's alarm,
    plus ``CALL_SLACK_MS``) and its wall guard, however many calls it makes; only the
    output cap grows with the calls (it bounds bytes, not time)."""
    total = time_ms + CALL_SLACK_MS
    return Limits(time_ms=total, wall_ms=2 * total + 2000, memory_mb=memory_mb,
                  output_kb=min(1 << 20, 2 * max_input_kb * calls + 64))


def _call(sandbox: "Sandbox", calls: list[tuple], time_ms: int, memory_mb: int,
          max_input_kb: int, *, stops: list | None = None) -> list[dict]:
    """Each (code, function, seed[, args]) called — ``args`` a list of positional
    arguments; one sandboxed process per distinct code, one process per call for the
    calls of a process that died as a whole. ``stops``: a key per call (its generator),
    the calls of one key in call order: a key whose call fails alone makes no later call
    (``SKIPPED``)."""
    groups: dict[str, list[int]] = {}
    for i, (code, *_) in enumerate(calls):
        groups.setdefault(code, []).append(i)
    results: list[dict | None] = [None] * len(calls)

    def batch(indices: list[int]) -> PyCall:
        code = with_prelude(calls[indices[0]][0]) + _DRIVER_TAIL
        return PyCall(code=code, function="_tczoo_generate_calls",
                      args=[[[calls[i][1], calls[i][2], *(calls[i][3] if len(calls[i]) > 3 else [])]
                             for i in indices], time_ms / 1000],
                      limits=process_limits(time_ms, memory_mb, max_input_kb, len(indices)))

    retry: list[int] = []
    batches = list(groups.values())
    for indices, res in zip(batches, sandbox.call_many([batch(ix) for ix in batches])):
        if res.ok and isinstance(res.value, list) and len(res.value) == len(indices):
            for i, r in zip(indices, res.value):
                results[i] = _from_driver(r)
        elif len(indices) == 1:
            results[indices[0]] = _whole_process_failure(res, batch(indices).limits)
        else:
            retry.extend(indices)
    # Alone, in waves: per key, as many calls as there are worker slots at a time.
    wave_size = max(1, int(getattr(sandbox, "workers", 1) or 1))
    queues: dict[Any, list[int]] = {}
    for i in retry:
        queues.setdefault(stops[i] if stops is not None else i, []).append(i)
    while queues:
        wave = [i for q in queues.values() for i in q[:wave_size]]
        for i, res in zip(wave, sandbox.call_many([batch([i]) for i in wave])):
            if res.ok and isinstance(res.value, list) and res.value:
                results[i] = _from_driver(res.value[0])
            else:
                results[i] = _whole_process_failure(res, batch([i]).limits)
        for key in list(queues):
            q = queues[key]
            sent, rest = q[:wave_size], q[wave_size:]
            if stops is not None and any(not (results[i] or {}).get("ok") for i in sent):
                for i in rest:
                    results[i] = {"ok": False, "kind": SKIPPED, "error": "an earlier call of its generator failed"}
                rest = []
            if rest:
                queues[key] = rest
            else:
                del queues[key]
    return results  # type: ignore[return-value]


def _from_driver(r: Any) -> dict:
    """A call's result as the generator's process reported it, held to what the driver
    can say: ``ok`` exactly True with a value, or a driver kind (anything else, e.g. a
    forged ``sandbox_error``, is the call's crash)."""
    if not isinstance(r, dict):
        return {"ok": False, "kind": "crash", "error": "no result"}
    if r.get("ok") is True and "value" in r:
        return {"ok": True, "value": r["value"]}
    kind = r.get("kind")
    error = r.get("error")
    return {"ok": False, "kind": kind if kind in _DRIVER_KINDS else "crash",
            "error": error if isinstance(error, str) else "no result"}


def _whole_process_failure(res, limits: Limits | None = None) -> dict:
    if res.run.verdict is Verdict.SE:
        return {"ok": False, "kind": "sandbox_error", "error": res.error}
    kind = _WHOLE_PROCESS_REASON.get(res.error_type or "") or CALL_FAILURE_REASONS.get(res.error_type or "", "crash")
    error = res.error[-1500:]
    if limits is not None:  # a failure names the limit it hit
        hit = {"memory": f"over {limits.memory_mb} MB of memory",
               "output_too_large": f"output over {limits.output_kb} KB",
               "timeout": f"over {limits.time_ms / 1000:g} s of CPU time (or {limits.wall_guard_ms / 1000:g} s of "
                          "wall time) for the process"}.get(kind)
        if hit:
            error = f"{hit} ({error})" if error else hit
    return {"ok": False, "kind": kind, "error": error}
