"""Performance-characterising conditions inside a copy of the reference.

The model inserts its conditions as calls ``perf_condition(ID, CONDITION)`` into the
reference. We supply ``perf_condition`` (a macro in C/C++, a function in Python) ahead
of the model's code: it writes one marker line to stderr the first time condition ID
holds in a run and never changes what the program computes. Two consumers read it:

- AFL++ sees each expanded macro as its own branch, so an input that makes a
  condition true reaches a new edge and is kept in the queue (WEDGE's reward);
- the driver's triage and our pure-Python loop read the markers from stderr and count
  the conditions an input satisfies.

WEDGE's checkers call ``abort()``; WEDGE strips those lines before fuzzing. We ask for
non-aborting checks and still neutralise any ``abort()`` the model writes, since an
aborting run is a crash to AFL++ and is never added to its queue.
"""

from __future__ import annotations

import re

from tczoo.schema import Language, Program

MARKER = re.compile(r"@@wedge-condition (-?\d{1,9})@@")

_C_HELPER = (
    "#include <stdio.h>\n"
    "/* tczoo WEDGE: perf_condition(id, cond) reports condition `id` once per run on stderr. */\n"
    "#define perf_condition(id, cond) do { static int tczoo_wedge_seen_ = 0; "
    "if (!tczoo_wedge_seen_ && (cond)) { tczoo_wedge_seen_ = 1; "
    "fprintf(stderr, \"\\n@@wedge-condition %d@@\\n\", (int)(id)); fflush(stderr); } } while (0)\n"
)

_PY_HELPER = (
    "import sys as _tczoo_wedge_sys\n"
    "_tczoo_wedge_seen = set()\n\n\n"
    "def perf_condition(id, cond):\n"
    "    \"\"\"tczoo WEDGE: report condition `id` once per run on stderr.\"\"\"\n"
    "    if cond and id not in _tczoo_wedge_seen:\n"
    "        _tczoo_wedge_seen.add(id)\n"
    "        _tczoo_wedge_sys.stderr.write(\"\\n@@wedge-condition %d@@\\n\" % int(id))\n"
    "        _tczoo_wedge_sys.stderr.flush()\n\n\n"
)

_CALL = re.compile(r"\bperf_condition\s*\(")
_CALL_ID = re.compile(r"\bperf_condition\s*\(\s*(\d{1,9})\s*,")
# C/C++: abort() and std::abort() become no-ops; a condition must never end the run.
_ABORT = re.compile(r"\b(?:std\s*::\s*)?abort\s*\(\s*\)")
# A definition of our helper by the model would clash with ours: drop it.
_C_OWN_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+perf_condition\b[^\n]*(?:\\\n[^\n]*)*", re.M)
_PY_OWN_DEF = re.compile(r"^[ \t]*def[ \t]+perf_condition\b", re.M)
_PY_FUTURE = re.compile(r"^from __future__ import [^\n]*\n", re.M)


def supported(language: Language) -> bool:
    return language in (Language.CPP, Language.C, Language.PYTHON)


def condition_ids(code: str) -> list[int]:
    """The condition IDs the model's code checks, in order of first appearance (call
    sites without a literal ID count as IDs 1000, 1001, ...)."""
    code = _PY_OWN_DEF.sub("", _C_OWN_DEFINE.sub("", code))
    ids: list[int] = []
    literal = [int(m.group(1)) for m in _CALL_ID.finditer(code)]
    for i in literal:
        if i not in ids:
            ids.append(i)
    extra = len(_CALL.findall(code)) - len(literal)
    ids += [1000 + k for k in range(max(0, extra))]
    return ids


def instrument(model_code: str, language: Language, name: str = "instrumented") -> Program:
    """The model's instrumented program with our ``perf_condition`` in front of it."""
    if language is Language.PYTHON:
        futures = "".join(m.group(0) for m in _PY_FUTURE.finditer(model_code))
        body = _PY_FUTURE.sub("", model_code)
        # a model's own perf_condition would replace ours: keep it under another name
        body = _PY_OWN_DEF.sub(lambda m: m.group(0).replace("perf_condition", "_model_perf_condition"), body)
        code = futures + _PY_HELPER + body
    else:
        body = _C_OWN_DEFINE.sub("", model_code)
        code = _C_HELPER + _ABORT.sub("((void)0)", body)
    return Program(code=code, language=language, name=name)


def satisfied(stderr: str) -> list[int]:
    """Condition IDs reported in a run's stderr, sorted."""
    return sorted({int(m.group(1)) for m in MARKER.finditer(stderr)})


def strip_markers(output: str) -> str:
    """A run's output without marker lines (the Python helper writes to stderr, but a
    program may have redirected it)."""
    return MARKER.sub("", output)
