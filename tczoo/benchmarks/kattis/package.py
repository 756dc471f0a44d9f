"""One Kattis/ICPC problem package (the layout problemtools, BAPCtools and DOMjudge read)
as a tczoo :class:`~tczoo.schema.Problem`.

What is read, and from where (legacy format; the 2023-07/2025-09 names in brackets):

* ``problem.yaml``: name, attribution, ``validation``, ``validator_flags``, ``limits``;
* the time limit from ``.timelimit`` (seconds), else DOMjudge's
  ``domjudge-problem.ini`` ``timelimit``, else ``limits.time_limit``; a package that
  states none gets the format's rule applied by :mod:`tczoo.benchmarks.kattis.timing`
  (``time_multiplier`` x the slowest accepted submission, rounded up to whole seconds);
* memory from ``limits.memory`` (MiB), else the format's typical default, 2048 MiB;
* ``problem_statement/problem.<lang>.tex`` or ``.md`` [``statement/``];
* ``data/sample`` -> samples, ``data/secret`` -> golden tests, groups nested to any
  depth, each group's test cases and subgroups in lexicographic order of base name;
* ``submissions/<folder>/``: ``accepted`` -> solutions; ``wrong_answer``,
  ``time_limit_exceeded``, ``run_time_error``, ``rejected`` (and DOMjudge's
  ``@EXPECTED_RESULTS@:`` markers) -> wrong solutions with their expected verdicts;
* ``output_validators/`` [``output_validator/``] and ``input_validators/``.

Nothing here runs a program: :func:`read_package` only reads files. A package the
zoo cannot judge (interactive, scoring, no secret test ...) is a :class:`Skipped`
with a one-line reason.

A package is untrusted data (docs/security.md): every file is read through a
``tczoo.safeio.read.Tree`` rooted at the folder the user named (a package or a contest),
so a link that leaves it, a FIFO, a device or a file over its cap is never read (a test
is skipped, a package whose ``problem.yaml``/statement/``.timelimit`` is refused is
skipped with the reason); ``problem.yaml`` goes through ``tczoo.safeio.yamlload`` (no
aliases) and every limit it states is range-checked (``TIME_LIMIT_RANGE_S`` ...).
"""

from __future__ import annotations

import configparser
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tczoo.benchmarks.kattis import programs
from tczoo.benchmarks.kattis.latex import latex_to_text
from tczoo.errors import UserError
from tczoo.sandbox.compare import kattis_comparator
from tczoo.schema import GoldenTest, Language, Problem, Program, Sample, Validator, WrongProgram
from tczoo.submissions import UNRUNNABLE
from tczoo.safeio.read import OverBudget, Refused, Tree, brief
from tczoo.safeio.yamlload import YAMLRefused, load_yaml

SCHEMA = "kattis"
DEFAULT_MEMORY_MB = 2048  # the format's "typical system default"
DEFAULT_TIME_MULTIPLIER = 5.0  # legacy limits.time_multiplier
DEFAULT_SAFETY_MARGIN = 2.0  # legacy limits.time_safety_margin
DEFAULT_VALIDATION_TIME_S = 60
DEFAULT_VALIDATION_MEMORY_MB = 1024
# What a package may state, checked when it is read (one bad value skips the package).
TIME_LIMIT_RANGE_S = (0.0, 3600.0)  # above 0, at most an hour
MEMORY_RANGE_MB = (1, 65536)  # 1 MiB to 64 GiB
MULTIPLIER_RANGE = (0.0, 20.0)  # time multipliers and safety margins: above 0, at most 20
MAX_YAML_BYTES = 1 << 20  # problem.yaml
MAX_SMALL_BYTES = 64 << 10  # .timelimit, domjudge-problem.ini
MAX_STATEMENT_BYTES = 8 << 20
# A test file over the per-file cap (tczoo.safeio.read: TCZOO_READ_FILE_MB, 256 MiB by
# default) is skipped, not read; so is a package over TCZOO_READ_TREE_MB in all.
STATEMENT_LANGUAGES = ("en",)  # preferred statement languages, in order
IMAGE_ENDINGS = ("", ".png", ".jpg", ".jpeg", ".pdf", ".svg", ".tex", ".eps")

# Submission folder -> the verdicts a submission there may end with (the first failing
# test decides, as in the format's default grader with on_reject: break).
VERDICT_FOLDERS: dict[str, tuple[str, ...]] = {
    "accepted": ("AC",),
    "wrong_answer": ("WA",),
    "time_limit_exceeded": ("TLE",),
    # The format has no memory verdict of its own: running out of memory is a crash.
    "run_time_error": ("RE", "MLE"),
    "rejected": ("WA", "TLE", "RE", "MLE", "OLE"),
    # DOMjudge's folders beyond the format's five
    "memory_limit_exceeded": ("MLE", "RE"),
    "output_limit_exceeded": ("OLE",),
}
# DOMjudge's "@EXPECTED_RESULTS@: A, B" marker (in any folder) names the allowed results.
EXPECTED_MARKER = re.compile(r"@EXPECTED_RESULTS@\s*:?\s*([A-Za-z_,\- \t]+)")
DOMJUDGE_RESULTS = {
    "CORRECT": "AC", "ACCEPTED": "AC", "WRONG_ANSWER": "WA", "WRONG-ANSWER": "WA", "NO-OUTPUT": "WA",
    "NO_OUTPUT": "WA", "TIMELIMIT": "TLE", "TIME_LIMIT_EXCEEDED": "TLE", "RUN_TIME_ERROR": "RE",
    "RUN-ERROR": "RE", "RUN_ERROR": "RE", "MEMORY_LIMIT": "MLE", "MEMORY-LIMIT": "MLE",
    "OUTPUT_LIMIT": "OLE", "OUTPUT-LIMIT": "OLE", "OUTPUT_LIMIT_EXCEEDED": "OLE",
}


class PackageError(UserError, ValueError):
    """The package cannot be read (one line: the file and what is wrong)."""


@dataclass
class Skipped:
    """A package the zoo does not load, and why (one line)."""

    package: str
    reason: str


@dataclass
class Scan:
    problems: list[Problem] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


# --------------------------------------------------------------------------- discovery


def is_package(path: Path, tree: Tree | None = None) -> bool:
    """A folder with something named ``problem.yaml`` (a link out of the tree or a FIFO
    there makes a package that is skipped with the reason, not a folder passed over)."""
    tree = tree or Tree(path)
    return tree.is_dir(path) and tree.kind(path / "problem.yaml") != "missing"


def find_packages(root: Path, tree: Tree | None = None) -> list[Path]:
    """Every package at or below ``root`` (a package's own folders are not searched).
    Links are followed only inside ``root``, a folder is never entered twice on one
    path (link loops), and the search stops at the tree's depth and entry caps."""
    tree = tree or Tree(root)
    found: list[Path] = []

    def visit(folder: Path, ancestors: tuple[str, ...]) -> None:
        if is_package(folder, tree):
            found.append(folder)
            return
        if len(ancestors) > tree.limits.depth:
            return
        for entry in tree.entries(folder):
            if entry.kind == "dir" and not entry.name.startswith(".") and not tree.loops(entry, ancestors):
                visit(entry.path, (*ancestors, entry.real))

    visit(Path(root), (tree.real(root),))
    return found


# --------------------------------------------------------------------------- problem.yaml


def read_yaml(pdir: Path, tree: Tree) -> dict[str, Any]:
    path = pdir / "problem.yaml"
    try:
        raw = tree.read_bytes(path, MAX_YAML_BYTES)
    except OverBudget:
        raise
    except Refused as exc:
        raise PackageError(f"problem.yaml: {exc}") from None
    try:
        data = load_yaml(raw, max_bytes=MAX_YAML_BYTES)
    except YAMLRefused as exc:
        where = f" at line {exc.line}" if exc.line else ""
        if exc.reason.startswith("not valid YAML: "):
            raise PackageError(f"problem.yaml is not valid YAML{where}: {exc.reason[16:]}") from None
        raise PackageError(f"problem.yaml{where}: {exc.reason}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise PackageError(f"problem.yaml must be a mapping of keys, not a {type(data).__name__}")
    return data


def _number(value: Any, key: str, *, positive: bool = True, bounds: tuple[float, float] | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise PackageError(f"problem.yaml: {key} must be a number, not {brief(value, 40)}")
    try:
        number = float(value)
    except (ValueError, OverflowError):
        raise PackageError(f"problem.yaml: {key} must be a number, not {brief(value, 40)}") from None
    if not math.isfinite(number):
        raise PackageError(f"problem.yaml: {key} must be a finite number, not {brief(value, 40)}")
    if positive and not number > 0:
        raise PackageError(f"problem.yaml: {key} must be positive, not {brief(value, 40)}")
    if bounds is not None and not bounds[0] <= number <= bounds[1]:
        raise PackageError(f"problem.yaml: {key} must be at most {bounds[1]:g}, not {brief(value, 40)}")
    return number


def _seconds(seconds: float, where: str, raw: Any) -> float:
    low, high = TIME_LIMIT_RANGE_S
    if not (math.isfinite(seconds) and low < seconds <= high):
        raise PackageError(f"{where}: the time limit must be above {low:g} and at most {high:g} seconds, "
                           f"not {brief(raw, 40)}")
    if round(seconds * 1000) < 1:  # the sandbox counts whole milliseconds: 0 ms is no limit a run can meet
        raise PackageError(f"{where}: the time limit must be at least 1 ms (0.001 s), not {brief(raw, 40)}")
    return seconds


def _name(data: dict, statement_title: str, pdir: Path) -> str:
    name = data.get("name")
    if isinstance(name, dict):
        for lang in STATEMENT_LANGUAGES:
            if isinstance(name.get(lang), str):
                return name[lang].strip()
        name = next((v for v in name.values() if isinstance(v, str)), None)
    if isinstance(name, str) and name.strip():
        return name.strip()
    return statement_title or pdir.name


# --------------------------------------------------------------------------- limits


def _small_file(pdir: Path, name: str, tree: Tree) -> str | None:
    """The text of a small optional file of the package, None when it is absent; a
    link out, a FIFO or an oversized file in its place makes the package malformed."""
    path = pdir / name
    kind = tree.kind(path)
    if kind == "missing":
        return None
    if kind != "file":
        raise PackageError(tree.why_not(path, kind))
    try:
        return tree.read_text(path, MAX_SMALL_BYTES)
    except OverBudget:
        raise
    except Refused as exc:
        raise PackageError(str(exc)) from None


def stated_time_limit(pdir: Path, limits: dict, tree: Tree | None = None) -> tuple[float, str] | None:
    """(seconds, where it was stated), or None when the package states no time limit."""
    tree = tree or Tree(pdir)
    text = _small_file(pdir, ".timelimit", tree)
    if text is not None:
        text = text.strip()
        try:
            seconds = float(text.split()[0]) if text else float("nan")
        except (ValueError, OverflowError):
            seconds = float("nan")
        if not seconds > 0:
            raise PackageError(f".timelimit must hold a positive number of seconds, not {text[:40]!r}")
        return _seconds(seconds, ".timelimit", text[:40]), ".timelimit"
    ini = _small_file(pdir, "domjudge-problem.ini", tree)
    if ini is not None:
        parser = configparser.ConfigParser()
        try:
            parser.read_string("[problem]\n" + ini)
            raw = parser.get("problem", "timelimit", fallback=None)
        except configparser.Error:
            raw = None
        if raw is not None:
            try:
                seconds = float(raw.strip().strip("'\""))
            except (ValueError, OverflowError):
                raise PackageError(f"domjudge-problem.ini: timelimit {brief(raw, 40)} is not a number") from None
            if seconds > 0:
                return _seconds(seconds, "domjudge-problem.ini", raw), "domjudge-problem.ini"
    if limits.get("time_limit") is not None:
        seconds = _number(limits["time_limit"], "limits.time_limit")
        return _seconds(seconds, "problem.yaml: limits.time_limit", limits["time_limit"]), \
            "problem.yaml limits.time_limit"
    return None


def time_multipliers(limits: dict) -> tuple[float, float]:
    """(multiplier from the slowest accepted run to the limit, safety margin) — legacy
    ``time_multiplier``/``time_safety_margin`` or 2023-07 ``time_multipliers``."""
    multipliers = limits.get("time_multipliers")
    bounds = MULTIPLIER_RANGE
    if isinstance(multipliers, dict):
        ac = _number(multipliers.get("ac_to_time_limit", 2.0), "limits.time_multipliers.ac_to_time_limit",
                     bounds=bounds)
        tle = _number(multipliers.get("time_limit_to_tle", 1.5), "limits.time_multipliers.time_limit_to_tle",
                      bounds=bounds)
        return ac, tle
    ac = _number(limits.get("time_multiplier", DEFAULT_TIME_MULTIPLIER), "limits.time_multiplier", bounds=bounds)
    margin = _number(limits.get("time_safety_margin", DEFAULT_SAFETY_MARGIN), "limits.time_safety_margin",
                     bounds=bounds)
    return ac, margin


# --------------------------------------------------------------------------- statement


def _statement_file(pdir: Path, tree: Tree) -> Path | None:
    for folder in ("problem_statement", "statement"):
        d = pdir / folder
        if not tree.is_dir(d):
            continue
        names = {e.name: e for e in tree.entries(d)}
        for lang in STATEMENT_LANGUAGES:
            for ext in (".tex", ".md"):
                if f"problem.{lang}{ext}" in names:
                    return d / f"problem.{lang}{ext}"
        for ext in (".tex", ".md"):
            if f"problem{ext}" in names:
                return d / f"problem{ext}"
        others = sorted(n for n in names if re.fullmatch(r"problem\.[^/]+\.tex", n)) + \
            sorted(n for n in names if re.fullmatch(r"problem\.[^/]+\.md", n))
        if others:
            return d / others[0]
    return None


def read_statement(pdir: Path, tree: Tree | None = None) -> tuple[str, str, dict]:
    """(title from the statement, text, meta) of the package's statement."""
    tree = tree or Tree(pdir)
    path = _statement_file(pdir, tree)
    if path is None:
        raise PackageError("no problem statement (problem_statement/problem.<lang>.tex or .md)")
    try:
        source = tree.read_text(path, MAX_STATEMENT_BYTES)
    except OverBudget:
        raise
    except Refused as exc:
        raise PackageError(f"statement: {exc}") from None
    meta: dict[str, Any] = {"file": str(path.relative_to(pdir))}
    if path.suffix == ".md":
        m = re.match(r"\s*#\s+(.+)\n", source)
        return (m.group(1).strip() if m else ""), source.strip() + "\n", meta

    folder = tree.real(path.parent)

    def find_image(name: str) -> str | None:
        for ext in IMAGE_ENDINGS:
            candidate = path.parent / f"{name}{ext}"
            if tree.is_file(candidate) and tree.real(candidate).startswith(folder.rstrip("/") + "/"):
                return candidate.name
        return None

    statement = latex_to_text(source, find_image)
    meta["images"] = statement.images
    if statement.notes:
        meta["conversion_notes"] = statement.notes
    return statement.title, statement.text, meta


# --------------------------------------------------------------------------- test data


@dataclass
class TestData:
    __test__ = False
    cases: list[tuple[str, str, str]] = field(default_factory=list)  # (name, input, answer)
    groups: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    # each group's testdata.yaml settings in force (its own file, else its closest
    # ancestor's, else the format's defaults): on_reject, grader_flags, accept_score ...
    settings: dict[str, dict] = field(default_factory=dict)


# testdata.yaml (legacy format): how a group's result is computed from its items
GROUP_DEFAULTS: dict[str, Any] = {"on_reject": "break", "grading": "default", "grader_flags": "",
                                  "accept_score": 1.0, "reject_score": 0.0, "range": "-inf +inf"}
MAX_TESTDATA_BYTES = 64 << 10
GRADER_FLAGS = ("worst_error", "no_errors", "first_error", "always_accept", "sum", "avg", "min", "max",
                "ignore_sample", "accept_if_any_accepted")


def read_testdata_yaml(group: Path, tree: Tree, inherited: dict) -> dict:
    """The group's settings: its own ``testdata.yaml`` (a whole file replaces the
    inherited one, as the format says), checked; else the inherited settings."""
    path = group / "testdata.yaml"
    kind = tree.kind(path)
    if kind == "missing":
        return inherited
    if kind != "file":
        raise PackageError(tree.why_not(path, kind))
    where = f"{tree.rel(path)}"
    try:
        data = load_yaml(tree.read_bytes(path, MAX_TESTDATA_BYTES), max_bytes=MAX_TESTDATA_BYTES)
    except OverBudget:
        raise
    except Refused as exc:
        raise PackageError(str(exc)) from None
    except YAMLRefused as exc:
        raise PackageError(f"{where}: {exc.reason}") from None
    data = data or {}
    if not isinstance(data, dict):
        raise PackageError(f"{where} must be a mapping of keys, not {brief(data, 40)}")
    settings = dict(GROUP_DEFAULTS)
    for key, value in data.items():
        if key == "on_reject":
            if value not in ("break", "continue"):
                raise PackageError(f"{where}: on_reject must be break or continue, not {brief(value, 40)}")
            settings[key] = value
        elif key == "grading":
            if value not in ("default", "custom"):
                raise PackageError(f"{where}: grading must be default or custom, not {brief(value, 40)}")
            settings[key] = value
        elif key == "grader_flags":
            flags = str(value or "").split()
            unknown = [f for f in flags if f not in GRADER_FLAGS]
            if unknown:
                raise PackageError(f"{where}: grader_flags {brief(unknown[0], 40)} is not one of the default "
                                   f"grader's ({', '.join(GRADER_FLAGS)})")
            settings[key] = " ".join(flags)
        elif key in ("accept_score", "reject_score"):
            settings[key] = _number(value, f"{where}: {key}", positive=False, bounds=(-1e9, 1e9))
        elif key == "range":
            settings[key] = str(value)
        else:  # input/output validator flags and the 2023-07 keys: kept, not used by the grader
            settings[key] = value if isinstance(value, (str, int, float, bool)) else brief(value, 200)
    return settings


def read_group(group: Path, label: str, data: TestData | None = None, tree: Tree | None = None,
               ancestors: tuple[str, ...] = (), inherited: dict | None = None) -> TestData:
    """Test cases of a group and its subgroups: entries (a case's base name, a
    subgroup's name) in lexicographic order, as the format orders them. A subgroup
    that is a link back to a folder above it (a loop) is not entered. Each group's
    ``testdata.yaml`` settings are in ``data.settings`` (inherited: the parent's)."""
    data = data or TestData()
    tree = tree or Tree(group)
    if not tree.is_dir(group):
        return data
    settings = read_testdata_yaml(group, tree, inherited if inherited is not None else dict(GROUP_DEFAULTS))
    data.settings[label] = settings
    # a link to the group itself or to any folder above it (up to the tree's root) is a loop
    ancestors = (*ancestors, tree.real(group)) if ancestors else tree.chain(group)
    if len(ancestors) > tree.limits.depth:
        data.skipped.append(f"{label}: deeper than {tree.limits.depth} folders: not read")
        return data
    data.groups.append(label)
    cases, subgroups = set(), {}
    for entry in tree.entries(group):
        if entry.name.startswith("."):
            continue
        if entry.kind == "dir":
            subgroups[entry.name] = entry
        elif entry.path.suffix in (".in", ".ans"):
            cases.add(entry.path.stem)
        elif entry.kind in ("outside", "loop"):  # a group linked out of the package, or in circles
            data.skipped.append(f"{label}/{entry.name}: {tree.why_not(entry.path, entry.kind)}")
    for key in sorted(cases | set(subgroups)):
        if key in cases:
            _read_case(group, key, f"{label}/{key}", data, tree)
        if key in subgroups:
            if tree.loops(subgroups[key], ancestors):
                data.skipped.append(f"{label}/{key}: a link back to a folder above it (a loop): not read")
            else:
                read_group(group / key, f"{label}/{key}", data, tree, ancestors, settings)
    return data


def _read_case(group: Path, key: str, name: str, data: TestData, tree: Tree) -> None:
    inp, ans = group / f"{key}.in", group / f"{key}.ans"
    kinds = tree.kind(inp), tree.kind(ans)
    if kinds[0] == "missing" and kinds[1] != "missing":
        data.skipped.append(f"{name}: an .ans without its .in")
        return
    if kinds[1] == "missing":
        data.skipped.append(f"{name}: no .ans file")
        return
    texts = []
    for path, kind in zip((inp, ans), kinds):
        if kind != "file":
            data.skipped.append(f"{name}: {tree.why_not(path, kind)}")
            return
        try:
            texts.append(tree.read_bytes(path).decode("utf-8", errors="replace"))
        except OverBudget:
            raise
        except Refused as exc:
            data.skipped.append(f"{name}: {exc}")
            return
    data.cases.append((name, texts[0], texts[1]))


# --------------------------------------------------------------------------- submissions


@dataclass
class Submissions:
    accepted: list[Program] = field(default_factory=list)
    wrong: list[WrongProgram] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)  # {"path", "reason"}
    skipped_languages: dict[str, int] = field(default_factory=dict)
    folders: dict[str, int] = field(default_factory=dict)
    # labelled submissions in a language tczoo has no Language for: {"name", "label", "reason"}
    unrunnable: list[dict] = field(default_factory=list)


def expected_from_marker(code: str) -> tuple[str, ...] | None:
    m = EXPECTED_MARKER.search(code[:4000])
    if not m:
        return None
    verdicts = []
    for word in re.split(r"[,\s]+", m.group(1).strip()):
        key = word.strip().upper()
        if key in DOMJUDGE_RESULTS and DOMJUDGE_RESULTS[key] not in verdicts:
            verdicts.append(DOMJUDGE_RESULTS[key])
    return tuple(verdicts) or None


def read_submissions(pdir: Path, tree: Tree | None = None, *, scoring: bool = False) -> Submissions:
    subs = Submissions()
    tree = tree or Tree(pdir)
    root = pdir / "submissions"
    folders = [e.path for e in tree.entries(root) if e.kind == "dir" and not e.name.startswith(".")]
    for folder in folders:
        entries = [e for e in tree.entries(folder) if not e.name.startswith(".")]
        subs.folders[folder.name] = len(entries)
        for item in entries:
            entry = item.path
            rel = f"{folder.name}/{entry.name}"
            if item.kind == "file" and programs._ending(entry) in programs.HEADER_ENDINGS:
                continue  # a header beside single-file submissions, included by them
            program = programs.read_program(entry, rel, tree)
            if isinstance(program, programs.Unreadable):
                subs.skipped.append({"path": rel, "reason": program.reason})
                if program.language:
                    subs.skipped_languages[program.language] = subs.skipped_languages.get(program.language, 0) + 1
                    label = VERDICT_FOLDERS.get(folder.name)
                    if label is not None:  # still a labelled submission: the runners show it cannot run
                        subs.unrunnable.append({"name": rel, "label": "accepted" if label == ("AC",) else "wrong",
                                                "reason": program.reason})
                continue
            expected = expected_from_marker(program.code) or VERDICT_FOLDERS.get(folder.name)
            partial = scoring and folder.name == "partially_accepted"
            if partial:
                # accepted with less than the full score: it fails some test, so pass-fail
                # judges (the runners) count it wrong; --check grades its score
                expected = ("WA", "TLE", "RE", "MLE", "OLE")
            if expected and "RE" in expected and "MLE" not in expected:
                expected = (*expected, "MLE")  # the format and DOMjudge: out of memory is a crash
            if expected is None:
                subs.skipped.append({
                    "path": rel,
                    "reason": f"folder {folder.name!r} is not one the format defines "
                              f"({', '.join(VERDICT_FOLDERS)}) and the file has no @EXPECTED_RESULTS@ marker",
                })
                continue
            meta = {**program.meta, "folder": folder.name, "expected_verdicts": list(expected)}
            if partial:
                meta["partially_accepted"] = True
            if expected == ("AC",):
                subs.accepted.append(program.model_copy(update={"meta": meta}))
            elif "AC" in expected:
                subs.skipped.append({"path": rel, "reason": f"expected results {', '.join(expected)} include "
                                                            "accepted: neither a solution nor a wrong one"})
            else:
                subs.wrong.append(WrongProgram(**program.model_dump(exclude={"meta"}), meta=meta))
    return subs


# --------------------------------------------------------------------------- validators


def _validator_programs(folder: Path, tree: Tree) -> tuple[list[tuple[str, Program]], list[dict]]:
    found, skipped = [], []
    for item in tree.entries(folder):
        entry = item.path
        if item.name.startswith("."):
            continue
        if item.kind == "file" and programs._ending(entry) in programs.HEADER_ENDINGS:
            continue
        if item.kind not in ("file", "dir"):
            program = programs.Unreadable(tree.why_not(entry, item.kind))
        elif entry.suffix == ".ctd":
            program = _checktestdata(entry, tree)
        elif entry.suffix == ".viva":
            program = programs.Unreadable("VIVA validators are not supported")
        else:
            program = programs.read_program(entry, f"{folder.name}/{entry.name}", tree)
        if isinstance(program, programs.Unreadable):
            skipped.append({"path": f"{folder.name}/{entry.name}", "reason": program.reason})
        else:
            found.append((entry.name, program))
    return found, skipped


def _checktestdata(path: Path, tree: Tree) -> Program | programs.Unreadable:
    """A checktestdata script as a standalone Python program (checktestdata's own
    converter), so that it runs jailed in the sandbox like any validator."""
    try:
        from checktestdata.parser import ParserException, parse
        from checktestdata.tokenizer import tokenize
    except ImportError:
        return programs.Unreadable("checktestdata is not installed (pip install checktestdata)")
    import sys

    try:
        source = tree.read_bytes(path, programs.MAX_SOURCE_BYTES)
    except OverBudget:
        raise
    except Refused as exc:
        return programs.Unreadable(str(exc))
    try:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 20_000))
        try:
            code = parse(tokenize(source)).python_code(standalone=True)
        finally:
            sys.setrecursionlimit(old)
    except ParserException as exc:
        token = getattr(exc, "token", None)
        where = f" at {token.line}:{token.column}" if token is not None else ""
        return programs.Unreadable(f"checktestdata cannot parse {path.name}{where}: {exc}")
    except Exception as exc:  # noqa: BLE001 - a hostile script must not stop the load
        return programs.Unreadable(f"checktestdata cannot convert {path.name}: {type(exc).__name__}: {exc}")
    return Program(code=code, language=Language.PYTHON, name=f"input_validators/{path.name}",
                   meta={"language": "checktestdata"})


def _validator_limits(limits: dict) -> dict:
    seconds = _number(limits.get("validation_time", DEFAULT_VALIDATION_TIME_S), "limits.validation_time",
                      bounds=(0.0, TIME_LIMIT_RANGE_S[1]))
    memory = _number(limits.get("validation_memory", DEFAULT_VALIDATION_MEMORY_MB), "limits.validation_memory",
                     bounds=(MEMORY_RANGE_MB[0], MEMORY_RANGE_MB[1]))
    return {"time_limit_ms": max(1, int(seconds * 1000)), "memory_limit_mb": max(1, int(memory))}


# --------------------------------------------------------------------------- the package


def _validation(data: dict) -> tuple[str, list[str]]:
    """(``default``/``custom``/..., the rest of the words) from legacy ``validation``
    or 2023-07 ``type``."""
    validation = data.get("validation")
    if validation is None and isinstance(data.get("type"), (str, list)):
        kinds = data["type"] if isinstance(data["type"], list) else data["type"].split()
        words = [w for w in kinds if w != "pass-fail"]
        return ("custom" if "interactive" in words else "default"), words
    if validation is None:
        return "default", []
    if not isinstance(validation, str) or not validation.split():
        raise PackageError(f"problem.yaml: validation must be 'default' or 'custom ...', not {brief(validation, 40)}")
    words = validation.split()
    if words[0] not in ("default", "custom"):
        raise PackageError(f"problem.yaml: validation must begin with default or custom, not {brief(words[0], 40)}")
    return words[0], words[1:]


def read_package(pdir: Path, root: Path, tree: Tree | None = None) -> Problem | Skipped:
    """The package as a Problem, or Skipped with the reason it is not loaded (one bad
    package never stops the others)."""
    label = str(pdir.relative_to(root)) if pdir != root else pdir.name
    tree = tree.fresh(label) if tree is not None else Tree(root, label=label)
    try:
        return _read(pdir, root, tree)
    except _Skip as skip:
        return Skipped(label, str(skip))
    except OverBudget as exc:
        return Skipped(label, f"too large: {exc}")
    except (PackageError, Refused) as exc:
        return Skipped(label, f"malformed package: {exc}")
    except RecursionError:
        return Skipped(label, "malformed package: nested too deeply to read")


class _Skip(Exception):
    pass


def _read(pdir: Path, root: Path, tree: Tree) -> Problem:
    data = read_yaml(pdir, tree)
    mode, extra = _validation(data)
    interactive = "interactive" in extra
    scoring = data.get("type") == "scoring" or "scoring" in extra
    if "score" in extra:
        raise _Skip("custom score (validation: custom score): the validator's score.txt is not read back "
                    "from the sandbox; scoring problems with the default grader load")
    for unsupported in ("multi-pass", "submit-answer"):
        if unsupported in extra:
            raise _Skip(f"{unsupported} problem: not a stdin/stdout problem the zoo can judge")
    limits = data.get("limits") or {}
    if not isinstance(limits, dict):
        raise PackageError(f"problem.yaml: limits must be a mapping, not {brief(limits, 40)}")
    flags = data.get("validator_flags") or ""
    if not isinstance(flags, str):
        raise PackageError(f"problem.yaml: validator_flags must be a string, not {brief(flags, 40)}")

    # The limits are checked before anything large is read: a bad value skips the package.
    stated = stated_time_limit(pdir, limits, tree)
    ac_multiplier, margin = time_multipliers(limits)
    memory = limits.get("memory")
    memory_mb = int(_number(memory, "limits.memory", bounds=MEMORY_RANGE_MB)) if memory is not None \
        else DEFAULT_MEMORY_MB
    validator_limits = _validator_limits(limits)

    statement_title, statement, statement_meta = read_statement(pdir, tree)
    root_settings = read_testdata_yaml(pdir / "data", tree, dict(GROUP_DEFAULTS))
    sample = read_group(pdir / "data" / "sample", "sample", tree=tree, inherited=root_settings)
    secret = read_group(pdir / "data" / "secret", "secret", tree=tree, inherited=root_settings)
    custom = [label for label, st in [("data", root_settings), *sample.settings.items(), *secret.settings.items()]
              if st.get("grading") == "custom"]
    if custom:
        raise _Skip(f"custom grader (grading: custom in {custom[0]}): tczoo grades with the format's default grader")
    if not secret.cases:
        raise _Skip("no secret test case with both .in and .ans"
                    + (f" ({'; '.join(secret.skipped[:3])})" if secret.skipped else ""))
    subs = read_submissions(pdir, tree, scoring=scoring)
    if not subs.accepted:
        raise _Skip("no accepted submission in a language the sandbox runs"
                    + (f" (skipped: {'; '.join(s['path'] + ': ' + s['reason'] for s in subs.skipped[:3])})"
                       if subs.skipped else ""))

    output_validator, checker = None, None
    validator_skips: list[dict] = []
    if mode == "custom":
        folder = pdir / "output_validators"
        if not tree.is_dir(folder):
            folder = pdir / "output_validator"
        found, validator_skips = _validator_programs(folder, tree)
        if len(found) != 1:
            detail = "; ".join(f"{s['path']}: {s['reason']}" for s in validator_skips)
            raise _Skip(f"validation: custom{' interactive' if interactive else ''} needs one output validator "
                        f"the sandbox can run, found {len(found)}" + (f" ({detail})" if detail else ""))
        output_validator = Validator(program=found[0][1], args=flags.split(), interactive=interactive,
                                     **validator_limits)
    else:
        try:
            checker = kattis_comparator(flags)
        except ValueError as exc:
            raise PackageError(f"problem.yaml: validator_flags {brief(flags, 60)}: {exc}") from None

    input_found, input_skips = _validator_programs(pdir / "input_validators", tree)
    if not input_found:
        legacy, more = _validator_programs(pdir / "input_format_validators", tree)
        input_found, input_skips = legacy, input_skips + more
    input_validators = [Validator(program=p, **validator_limits) for _, p in input_found]
    limits_meta = {
        "time_limit_source": stated[1] if stated else "not stated: time_multiplier x slowest accepted run",
        "time_multiplier": ac_multiplier,
        "time_safety_margin": margin,
        "memory_source": "problem.yaml limits.memory" if memory is not None
        else f"format default ({DEFAULT_MEMORY_MB} MiB)",
    }
    attribution = {k: data[k] for k in ("author", "source", "source_url", "license", "rights_owner", "uuid")
                   if isinstance(data.get(k), (str, int, float))}
    meta = {
        "kattis": {
            "package": str(pdir),
            "validation": " ".join([mode, *extra]),
            "validator_flags": flags,
            "limits": limits_meta,
            "statement": statement_meta,
            "test_groups": sample.groups + secret.groups,
            "sample_tests": len(sample.cases),
            "sample_names": [name for name, _, _ in sample.cases],
            "secret_tests": len(secret.cases),
            "submission_folders": subs.folders,
            "type": "scoring" if scoring else "pass-fail",
            "interactive": interactive,
            # how each group's result is computed (testdata.yaml): scoring.py grades with it
            "group_settings": {"data": root_settings, **sample.settings, **secret.settings},
        },
        "attribution": attribution,
    }
    skipped = {
        "tests": sample.skipped + secret.skipped,
        "submissions": subs.skipped,
        "validators": validator_skips + input_skips,
    }
    for key, value in skipped.items():
        if value:
            meta["kattis"][f"skipped_{key}"] = value
    if subs.skipped_languages:
        meta["kattis"]["skipped_languages"] = subs.skipped_languages
    if subs.unrunnable:
        meta[UNRUNNABLE] = subs.unrunnable
    if scoring:
        grading = data.get("grading") if isinstance(data.get("grading"), dict) else {}
        objective = grading.get("objective", "max")
        if objective not in ("min", "max"):
            raise PackageError(f"problem.yaml: grading.objective must be min or max, not {brief(objective, 40)}")
        meta["kattis"]["grading"] = {"objective": objective}
    tags = [w for w in str(data.get("keywords") or "").split() if w] if isinstance(data.get("keywords"), str) \
        else [str(w) for w in data.get("keywords") or [] if isinstance(w, (str, int))]
    if interactive and "interactive" not in tags:
        tags.append("interactive")  # Problem.interactive: runners and methods read it there
    time_limit_ms = int(round(stated[0] * 1000)) if stated else None
    problem = Problem(
        id=pdir.name,
        title=_name(data, statement_title, pdir),
        statement=statement,
        time_limit_ms=time_limit_ms if time_limit_ms is not None else 1000,
        memory_limit_mb=memory_mb,
        samples=[Sample(input=i, output=a) for _, i, a in sample.cases],
        solutions=subs.accepted,
        wrong_solutions=subs.wrong,
        golden_tests=[GoldenTest(input=i, output=a, name=n) for n, i, a in secret.cases],
        checker=checker,
        output_validator=output_validator,
        input_validators=input_validators,
        tags=tags,
        source=SCHEMA,
        meta=meta,
    )
    if time_limit_ms is None:
        problem.meta["kattis"]["time_limit_pending"] = True
    return problem


def scan(path: Path) -> Scan:
    """Read every package at or below ``path``: problems and skipped packages, with reasons."""
    result = Scan()
    tree = Tree(path)  # links may lead anywhere inside PATH (a contest's shared files), never out of it
    packages = find_packages(path, tree)
    ids: dict[str, Path] = {}
    for pdir in packages:
        item = read_package(pdir, path, tree)
        if isinstance(item, Problem):
            if item.id in ids:  # two contests' packages of one name: qualify both by path
                item.id = str(pdir.relative_to(path)).replace("/", "-")
            ids[item.id] = pdir
            result.problems.append(item)
        else:
            result.skipped.append(item)
    return result
