"""How the model's Python (``validate_input``, ``mutate_input``) is called.

Every call happens in the sandbox: batches through ``Context.call`` (the model's code
with one of our batch functions appended), and inside the AFL++ job through the module
``wedge_mutator`` (AFL++'s Python custom-mutator interface around ``mutate_input``) and
the validation script the job's driver runs. The code here is ours; the model's code is
only ever loaded by it, inside a jail.
"""

from __future__ import annotations

from tczoo.execution import Limits, py_call, read_call
from tczoo.method import Context

VALIDATE_FUNCTION = "validate_input"
MUTATE_FUNCTION = "mutate_input"
# How validate_many marks inputs whose whole batch failed (the module did not load, or a
# limit stopped it) rather than a verdict of validate_input.
BATCH_FAILED = "validator failed as a whole"

_VALIDATE_MANY = '''


def _tczoo_validate_many(texts):
    """None for an accepted input, else why it was rejected."""
    import traceback as _tb
    verdicts = []
    for text in texts:
        try:
            result = validate_input(text)
        except AssertionError as exc:
            verdicts.append(("AssertionError: %s" % (exc,)).rstrip(": ")[:500])
            continue
        except Exception as exc:  # a validator that crashes rejects the input
            verdicts.append(("%s: %s" % (type(exc).__name__, exc))[:300] + "\\n" + _tb.format_exc()[-700:])
            continue
        verdicts.append("validate_input returned %r" % (result,) if result is False else None)
    return verdicts
'''

_MUTATE_MANY = '''


def _tczoo_mutate_many(parents, count):
    """count calls of mutate_input, on the parents in turn: {"input": ...} or {"error": ...}."""
    import traceback as _tb
    out = []
    for k in range(count):
        try:
            child = mutate_input(parents[k % len(parents)])
        except Exception as exc:
            out.append({"error": ("%s: %s" % (type(exc).__name__, exc))[:300] + "\\n" + _tb.format_exc()[-700:]})
            continue
        if not isinstance(child, str):
            out.append({"error": "mutate_input returned %s, not str" % type(child).__name__})
            continue
        out.append({"input": child})
    return out
'''

# AFL++'s Python custom-mutator module (AFL_PYTHON_MODULE=wedge_mutator). A failing call
# returns the parent unchanged, so the fuzzer never stops on the model's bugs.
AFL_MODULE = '''"""tczoo WEDGE: AFL++ custom mutator around the model's mutate_input."""
import random

_model = None


def init(seed):
    global _model
    random.seed(seed)
    try:
        import wedge_model
        _model = wedge_model
    except BaseException:
        _model = None


def fuzz(buf, add_buf, max_size):
    if _model is not None:
        try:
            child = _model.mutate_input(bytes(buf).decode("utf-8", "replace"))
            if isinstance(child, str) and child.strip():
                data = child.encode("utf-8", "replace")
                if len(data) <= max_size:
                    return bytearray(data)
        except BaseException:
            pass
    return bytearray(buf)


def deinit():
    pass
'''

# Run by the AFL++ job's driver as ``python3 -I wedge_validate.py < paths.json``: the
# model's validator on each file, one JSON list of verdicts (None = accepted) on stdout.
VALIDATE_SCRIPT = '''import json, sys

def main():
    paths = json.load(sys.stdin)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    namespace = {"__name__": "wedge_validator"}
    with open("wedge_validator.py", encoding="utf-8") as f:
        exec(compile(f.read(), "wedge_validator.py", "exec"), namespace)
    validate = namespace["validate_input"]
    verdicts = []
    for path in paths:
        with open(path, "rb") as f:
            data = f.read()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            verdicts.append("not UTF-8")
            continue
        try:
            result = validate(text)
        except AssertionError as exc:
            verdicts.append(("AssertionError: %s" % (exc,)).rstrip(": ")[:300])
            continue
        except Exception as exc:
            verdicts.append(("%s: %s" % (type(exc).__name__, exc))[:300])
            continue
        verdicts.append("validate_input returned False" if result is False else None)
    sys.stdout.write(json.dumps(verdicts))

main()
'''


async def validate_many(ctx: Context, code: str, texts: list[str], *, per_input_ms: int,
                        batch: int = 8) -> list[str | None]:
    """The model's validator on each text: None (accepted) or the reason it was not
    (a rejection, a crash, or the whole batch failing: timeout, memory ...)."""
    if not texts:
        return []
    calls = []
    for start in range(0, len(texts), batch):
        chunk = texts[start:start + batch]
        limits = Limits(time_ms=per_input_ms * len(chunk), memory_mb=1024,
                        output_kb=64 + 4 * len(chunk))
        calls.append(py_call(code + _VALIDATE_MANY, "_tczoo_validate_many", seed=0, args=[chunk], limits=limits))
    out: list[str | None] = []
    for start, result in zip(range(0, len(texts), batch), await ctx.call(calls)):
        n = len(texts[start:start + batch])
        ok, value, reason, detail = read_call(result)
        if ok and isinstance(value, list) and len(value) == n:
            out += [v if v is None or isinstance(v, str) else f"validate_input gave {v!r}" for v in value]
        else:
            why = f"{BATCH_FAILED} ({reason or 'bad_return'}): {detail[-500:]}".rstrip(": ")
            out += [why] * n
    return out


async def mutate_many(ctx: Context, code: str, parents: list[str], count: int, *, seed: int, per_call_ms: int,
                      max_input_kb: int) -> list[dict]:
    """``count`` calls of the model's ``mutate_input`` in one sandboxed process."""
    limits = Limits(time_ms=per_call_ms * count, memory_mb=1024,
                    output_kb=2 * count * max_input_kb + 1024)
    [result] = await ctx.call([py_call(code + _MUTATE_MANY, "_tczoo_mutate_many", seed=seed,
                                       args=[parents, count], limits=limits)])
    ok, value, reason, detail = read_call(result)
    if ok and isinstance(value, list):
        return [v if isinstance(v, dict) else {"error": "bad item"} for v in value]
    return [{"error": f"{reason or 'bad_return'}: {detail[-1000:]}".rstrip(": ")}] * count
