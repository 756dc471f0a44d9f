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
"""

from __future__ import annotations

import configparser
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tczoo.benchmarks.kattis import programs
from tczoo.benchmarks.kattis.latex import latex_to_text
from tczoo.errors import UserError
from tczoo.sandbox.compare import kattis_comparator
from tczoo.schema import GoldenTest, Language, Problem, Program, Sample, Validator, WrongProgram

SCHEMA = "kattis"
DEFAULT_MEMORY_MB = 2048  # the format's "typical system default"
DEFAULT_TIME_MULTIPLIER = 5.0  # legacy limits.time_multiplier
DEFAULT_SAFETY_MARGIN = 2.0  # legacy limits.time_safety_margin
DEFAULT_VALIDATION_TIME_S = 60
DEFAULT_VALIDATION_MEMORY_MB = 1024
MAX_TEST_BYTES = 256 << 20  # a test file larger than this is skipped, not read
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


def is_package(path: Path) -> bool:
    return path.is_dir() and (path / "problem.yaml").is_file()


def find_packages(root: Path) -> list[Path]:
    """Every package at or below ``root`` (a package's own folders are not searched)."""
    if is_package(root):
        return [root]
    found: list[Path] = []
    try:
        children = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return found
    for child in children:
        found.extend(find_packages(child))
    return found


# --------------------------------------------------------------------------- problem.yaml


def read_yaml(pdir: Path) -> dict[str, Any]:
    path = pdir / "problem.yaml"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PackageError(f"problem.yaml: cannot read it ({exc})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        what = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise PackageError(f"problem.yaml is not valid YAML{where}: {what}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise PackageError(f"problem.yaml must be a mapping of keys, not a {type(data).__name__}")
    return data


def _number(value: Any, key: str, *, positive: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise PackageError(f"problem.yaml: {key} must be a number, not {value!r}")
    try:
        number = float(value)
    except ValueError:
        raise PackageError(f"problem.yaml: {key} must be a number, not {value!r}") from None
    if positive and not number > 0:
        raise PackageError(f"problem.yaml: {key} must be positive, not {value!r}")
    return number


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


def stated_time_limit(pdir: Path, limits: dict) -> tuple[float, str] | None:
    """(seconds, where it was stated), or None when the package states no time limit."""
    dotfile = pdir / ".timelimit"
    if dotfile.is_file():
        text = dotfile.read_text(errors="replace").strip()
        try:
            seconds = float(text.split()[0]) if text else float("nan")
        except ValueError:
            seconds = float("nan")
        if not seconds > 0:
            raise PackageError(f".timelimit must hold a positive number of seconds, not {text[:40]!r}")
        return seconds, ".timelimit"
    ini = pdir / "domjudge-problem.ini"
    if ini.is_file():
        parser = configparser.ConfigParser()
        try:
            parser.read_string("[problem]\n" + ini.read_text(errors="replace"))
            raw = parser.get("problem", "timelimit", fallback=None)
        except configparser.Error:
            raw = None
        if raw is not None:
            try:
                seconds = float(raw.strip().strip("'\""))
            except ValueError:
                raise PackageError(f"domjudge-problem.ini: timelimit {raw!r} is not a number") from None
            if seconds > 0:
                return seconds, "domjudge-problem.ini"
    if limits.get("time_limit") is not None:
        return _number(limits["time_limit"], "limits.time_limit"), "problem.yaml limits.time_limit"
    return None


def time_multipliers(limits: dict) -> tuple[float, float]:
    """(multiplier from the slowest accepted run to the limit, safety margin) — legacy
    ``time_multiplier``/``time_safety_margin`` or 2023-07 ``time_multipliers``."""
    multipliers = limits.get("time_multipliers")
    if isinstance(multipliers, dict):
        ac = _number(multipliers.get("ac_to_time_limit", 2.0), "limits.time_multipliers.ac_to_time_limit")
        tle = _number(multipliers.get("time_limit_to_tle", 1.5), "limits.time_multipliers.time_limit_to_tle")
        return ac, tle
    ac = _number(limits.get("time_multiplier", DEFAULT_TIME_MULTIPLIER), "limits.time_multiplier")
    margin = _number(limits.get("time_safety_margin", DEFAULT_SAFETY_MARGIN), "limits.time_safety_margin")
    return ac, margin


# --------------------------------------------------------------------------- statement


def _statement_file(pdir: Path) -> Path | None:
    for folder in ("problem_statement", "statement"):
        d = pdir / folder
        if not d.is_dir():
            continue
        for lang in STATEMENT_LANGUAGES:
            for ext in (".tex", ".md"):
                if (d / f"problem.{lang}{ext}").is_file():
                    return d / f"problem.{lang}{ext}"
        for ext in (".tex", ".md"):
            if (d / f"problem{ext}").is_file():
                return d / f"problem{ext}"
        others = sorted(d.glob("problem.*.tex")) + sorted(d.glob("problem.*.md"))
        if others:
            return others[0]
    return None


def read_statement(pdir: Path) -> tuple[str, str, dict]:
    """(title from the statement, text, meta) of the package's statement."""
    path = _statement_file(pdir)
    if path is None:
        raise PackageError("no problem statement (problem_statement/problem.<lang>.tex or .md)")
    source = path.read_text(encoding="utf-8", errors="replace")
    meta: dict[str, Any] = {"file": str(path.relative_to(pdir))}
    if path.suffix == ".md":
        m = re.match(r"\s*#\s+(.+)\n", source)
        return (m.group(1).strip() if m else ""), source.strip() + "\n", meta

    def find_image(name: str) -> str | None:
        for ext in IMAGE_ENDINGS:
            candidate = path.parent / f"{name}{ext}"
            if candidate.is_file() and path.parent.resolve() in candidate.resolve().parents:
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


def _read_text(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_TEST_BYTES:
            return None
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return None


def read_group(group: Path, label: str, data: TestData | None = None) -> TestData:
    """Test cases of a group and its subgroups: entries (a case's base name, a
    subgroup's name) in lexicographic order, as the format orders them."""
    data = data or TestData()
    if not group.is_dir():
        return data
    data.groups.append(label)
    cases, subgroups = set(), set()
    for p in group.iterdir():
        if p.name.startswith("."):
            continue
        if p.is_dir():
            subgroups.add(p.name)
        elif p.suffix in (".in", ".ans"):
            cases.add(p.stem)
    for key in sorted(cases | subgroups):
        if key in cases:
            _read_case(group, key, f"{label}/{key}", data)
        if key in subgroups:
            read_group(group / key, f"{label}/{key}", data)
    return data


def _read_case(group: Path, key: str, name: str, data: TestData) -> None:
    inp, ans = group / f"{key}.in", group / f"{key}.ans"
    if not inp.is_file():
        data.skipped.append(f"{name}: an .ans without its .in")
        return
    if not ans.is_file():
        data.skipped.append(f"{name}: no .ans file")
        return
    text_in, text_ans = _read_text(inp), _read_text(ans)
    if text_in is None or text_ans is None:
        data.skipped.append(f"{name}: unreadable or over {MAX_TEST_BYTES >> 20} MiB")
        return
    data.cases.append((name, text_in, text_ans))


# --------------------------------------------------------------------------- submissions


@dataclass
class Submissions:
    accepted: list[Program] = field(default_factory=list)
    wrong: list[WrongProgram] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)  # {"path", "reason"}
    skipped_languages: dict[str, int] = field(default_factory=dict)
    folders: dict[str, int] = field(default_factory=dict)


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


def read_submissions(pdir: Path) -> Submissions:
    subs = Submissions()
    root = pdir / "submissions"
    if not root.is_dir():
        return subs
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        entries = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
        subs.folders[folder.name] = len(entries)
        for entry in entries:
            rel = f"{folder.name}/{entry.name}"
            if entry.is_file() and programs._ending(entry) in programs.HEADER_ENDINGS:
                continue  # a header beside single-file submissions, included by them
            program = programs.read_program(entry, rel)
            if isinstance(program, programs.Unreadable):
                subs.skipped.append({"path": rel, "reason": program.reason})
                if program.language:
                    subs.skipped_languages[program.language] = subs.skipped_languages.get(program.language, 0) + 1
                continue
            expected = expected_from_marker(program.code) or VERDICT_FOLDERS.get(folder.name)
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
            if expected == ("AC",):
                subs.accepted.append(program.model_copy(update={"meta": meta}))
            elif "AC" in expected:
                subs.skipped.append({"path": rel, "reason": f"expected results {', '.join(expected)} include "
                                                            "accepted: neither a solution nor a wrong one"})
            else:
                subs.wrong.append(WrongProgram(**program.model_dump(exclude={"meta"}), meta=meta))
    return subs


# --------------------------------------------------------------------------- validators


def _validator_programs(folder: Path) -> tuple[list[tuple[str, Program]], list[dict]]:
    found, skipped = [], []
    if not folder.is_dir():
        return found, skipped
    entries = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    for entry in entries:
        if entry.is_file() and programs._ending(entry) in programs.HEADER_ENDINGS:
            continue
        if entry.suffix == ".ctd":
            program = _checktestdata(entry)
        elif entry.suffix == ".viva":
            program = programs.Unreadable("VIVA validators are not supported")
        else:
            program = programs.read_program(entry, f"{folder.name}/{entry.name}")
        if isinstance(program, programs.Unreadable):
            skipped.append({"path": f"{folder.name}/{entry.name}", "reason": program.reason})
        else:
            found.append((entry.name, program))
    return found, skipped


def _checktestdata(path: Path) -> Program | programs.Unreadable:
    """A checktestdata script as a standalone Python program (checktestdata's own
    converter), so that it runs jailed in the sandbox like any validator."""
    try:
        from checktestdata.parser import ParserException, parse
        from checktestdata.tokenizer import tokenize
    except ImportError:
        return programs.Unreadable("checktestdata is not installed (pip install checktestdata)")
    import sys

    try:
        source = path.read_bytes()
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
    return {
        "time_limit_ms": int(_number(limits.get("validation_time", DEFAULT_VALIDATION_TIME_S),
                                     "limits.validation_time") * 1000),
        "memory_limit_mb": int(_number(limits.get("validation_memory", DEFAULT_VALIDATION_MEMORY_MB),
                                       "limits.validation_memory")),
    }


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
        raise PackageError(f"problem.yaml: validation must be 'default' or 'custom ...', not {validation!r}")
    words = validation.split()
    if words[0] not in ("default", "custom"):
        raise PackageError(f"problem.yaml: validation must begin with default or custom, not {words[0]!r}")
    return words[0], words[1:]


def read_package(pdir: Path, root: Path) -> Problem | Skipped:
    """The package as a Problem, or Skipped with the reason it is not loaded."""
    label = str(pdir.relative_to(root)) if pdir != root else pdir.name
    try:
        return _read(pdir, root)
    except _Skip as skip:
        return Skipped(label, str(skip))
    except PackageError as exc:
        return Skipped(label, f"malformed package: {exc}")


class _Skip(Exception):
    pass


def _read(pdir: Path, root: Path) -> Problem:
    data = read_yaml(pdir)
    mode, extra = _validation(data)
    if "interactive" in extra:
        raise _Skip("interactive problem (validation: custom interactive): the zoo judges "
                    "programs on fixed inputs, not in dialogue with a validator")
    if "score" in extra or data.get("type") == "scoring" or "scoring" in extra:
        raise _Skip("scoring problem: the zoo judges pass-fail problems only")
    for unsupported in ("multi-pass", "submit-answer"):
        if unsupported in extra:
            raise _Skip(f"{unsupported} problem: not a stdin/stdout problem the zoo can judge")
    limits = data.get("limits") or {}
    if not isinstance(limits, dict):
        raise PackageError(f"problem.yaml: limits must be a mapping, not {limits!r}")
    flags = data.get("validator_flags") or ""
    if not isinstance(flags, str):
        raise PackageError(f"problem.yaml: validator_flags must be a string, not {flags!r}")

    statement_title, statement, statement_meta = read_statement(pdir)
    sample = read_group(pdir / "data" / "sample", "sample")
    secret = read_group(pdir / "data" / "secret", "secret")
    if not secret.cases:
        raise _Skip("no secret test case with both .in and .ans"
                    + (f" ({'; '.join(secret.skipped[:3])})" if secret.skipped else ""))
    subs = read_submissions(pdir)
    if not subs.accepted:
        raise _Skip("no accepted submission in a language the sandbox runs"
                    + (f" (skipped: {'; '.join(s['path'] + ': ' + s['reason'] for s in subs.skipped[:3])})"
                       if subs.skipped else ""))

    output_validator, checker = None, None
    validator_skips: list[dict] = []
    if mode == "custom":
        folder = pdir / "output_validators"
        if not folder.is_dir():
            folder = pdir / "output_validator"
        found, validator_skips = _validator_programs(folder)
        if len(found) != 1:
            detail = "; ".join(f"{s['path']}: {s['reason']}" for s in validator_skips)
            raise _Skip(f"validation: custom needs one output validator the sandbox can run, found "
                        f"{len(found)}" + (f" ({detail})" if detail else ""))
        output_validator = Validator(program=found[0][1], args=flags.split(), **_validator_limits(limits))
    else:
        try:
            checker = kattis_comparator(flags)
        except ValueError as exc:
            raise PackageError(f"problem.yaml: validator_flags {flags!r}: {exc}") from None

    input_found, input_skips = _validator_programs(pdir / "input_validators")
    if not input_found:
        legacy, more = _validator_programs(pdir / "input_format_validators")
        input_found, input_skips = legacy, input_skips + more
    input_validators = [Validator(program=p, **_validator_limits(limits)) for _, p in input_found]

    stated = stated_time_limit(pdir, limits)
    ac_multiplier, margin = time_multipliers(limits)
    memory = limits.get("memory")
    memory_mb = int(_number(memory, "limits.memory")) if memory is not None else DEFAULT_MEMORY_MB
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
        tags=[w for w in str(data.get("keywords") or "").split() if w] if isinstance(data.get("keywords"), str)
        else [str(w) for w in data.get("keywords") or [] if isinstance(w, (str, int))],
        source=SCHEMA,
        meta=meta,
    )
    if time_limit_ms is None:
        problem.meta["kattis"]["time_limit_pending"] = True
    return problem


def scan(path: Path) -> Scan:
    """Read every package at or below ``path``: problems and skipped packages, with reasons."""
    result = Scan()
    packages = find_packages(path)
    ids: dict[str, Path] = {}
    for pdir in packages:
        item = read_package(pdir, path)
        if isinstance(item, Problem):
            if item.id in ids:  # two contests' packages of one name: qualify both by path
                item.id = str(pdir.relative_to(path)).replace("/", "-")
            ids[item.id] = pdir
            result.problems.append(item)
        else:
            result.skipped.append(item)
    return result
