"""HarnessLLM evaluation sets (``Shiyu-Lab/Testcase_MBPPHard``, ``Testcase_LCB_Seen``,
``Testcase_LCB_Unseen``, ``Testcase_CF_Seen``, ``Testcase_CF_Unseen``; split ``train``).

Each record is one (problem, buggy program, ground-truth program) triplet, in the verl
RL layout the HarnessLLM repository reads: ``uid``, ``description`` and
``reward_model.ground_truth``, a JSON string (or object) with ``good_code``,
``bad_code`` and ``code_type`` (``"input/output"``, the default, or ``"functional"``).
A program is a code string, or ``{"code": ..., "entry_point": ...}`` for functional
problems (the entry point may read ``Solution().name`` for LeetCode-style classes).
Flat records with ``good_code`` / ``bad_code`` / ``code_type`` at the top level are
accepted too. All programs are Python.

The result is a Problem with one accepted solution (the ground truth) and one wrong
solution (the program under test); functional problems set ``entry_point``.

Limits: the sets state none. Such a problem gets ``limits_given=False`` and the
authors' evaluation timeout, 20 s (``UNSTATED_TIME_MS``; their evaluation sets
``GLOBAL_TIMEOUT = 20`` for every program, generator and checker), with 1024 MB of memory
(``UNSTATED_MEMORY_MB``: they set no memory limit, a sandbox needs one). A record that
does carry ``time_limit_ms`` / ``memory_limit_mb`` keeps its own.
"""

from __future__ import annotations

import json
from typing import Any

from tczoo.benchmarks.hub import RecordError
from tczoo.schema import Language, Problem, Program, WrongProgram

SCHEMA = "harnessllm"
REQUIRED = ("description",)
UNSTATED_TIME_MS = 20_000
UNSTATED_MEMORY_MB = 1024
DATASETS = {
    "mbpp-hard": "Shiyu-Lab/Testcase_MBPPHard",
    "lcb-seen": "Shiyu-Lab/Testcase_LCB_Seen",
    "lcb-unseen": "Shiyu-Lab/Testcase_LCB_Unseen",
    "cf-seen": "Shiyu-Lab/Testcase_CF_Seen",
    "cf-unseen": "Shiyu-Lab/Testcase_CF_Unseen",
}


def ground_truth(record: dict[str, Any]) -> dict[str, Any]:
    if "good_code" in record or "bad_code" in record:
        return record
    reward = record.get("reward_model")
    gt = reward.get("ground_truth") if isinstance(reward, dict) else None
    if isinstance(gt, str):
        try:
            gt = json.loads(gt)
        except json.JSONDecodeError:
            raise RecordError("reward_model.ground_truth is not JSON") from None
    if not isinstance(gt, dict) or "bad_code" not in gt:
        raise RecordError(
            "not a harnessllm record: needs reward_model.ground_truth with good_code/bad_code/code_type "
            "(or those fields at the top level)"
        )
    return gt


def _program(value: Any, role: str) -> tuple[str, str | None]:
    if isinstance(value, dict):
        if "code" not in value:
            raise RecordError(f"{role} object has no 'code'")
        return value["code"], value.get("entry_point")
    if isinstance(value, str):
        return value, None
    raise RecordError(f"{role} must be a code string or {{code, entry_point}}")


def to_problem(record: dict[str, Any], index: int = 0, *, dataset: str = "") -> Problem:
    if not isinstance(record, dict):
        raise RecordError(f"not a harnessllm record: expected a JSON object, got {type(record).__name__}")
    gt = ground_truth(record)
    if gt.get("good_code") is None:
        raise RecordError("harnessllm record has no good_code (the ground-truth program)")
    description = record.get("description", gt.get("description"))
    if description is None:
        raise RecordError("not a harnessllm record: missing field(s) ['description']")
    code_type = gt.get("code_type") or "input/output"
    if code_type not in ("input/output", "functional"):
        raise RecordError(f"unknown code_type {code_type!r} (input/output or functional)")
    good, good_entry = _program(gt["good_code"], "good_code")
    bad, bad_entry = _program(gt["bad_code"], "bad_code")
    raw_entry = good_entry or bad_entry
    entry = None
    if code_type == "functional":
        if not raw_entry:
            raise RecordError("functional record without an entry_point")
        entry = raw_entry.replace("Solution().", "")
    uid = record.get("uid")
    if uid is None:
        extra = record.get("extra_info")
        uid = extra.get("index") if isinstance(extra, dict) and "index" in extra else index
    pid = f"{dataset}-{uid}" if dataset else str(uid)
    meta: dict[str, Any] = {"code_type": code_type, "uid": uid}
    if raw_entry and raw_entry != entry:
        meta["entry_point_raw"] = raw_entry  # a LeetCode-style Solution method
    if dataset:
        meta["dataset"] = dataset
    if record.get("data_source"):
        meta["data_source"] = record["data_source"]
    limits = _limits(record)
    return Problem(
        id=pid,
        statement=description,
        **limits,
        solutions=[Program(code=good, language=Language.PYTHON, name="good_code")],
        wrong_solutions=[WrongProgram(code=bad, language=Language.PYTHON, name="bad_code")],
        entry_point=entry,
        source=f"harnessllm:{dataset}" if dataset else SCHEMA,
        meta=meta,
    )


def _limits(record: dict[str, Any]) -> dict[str, Any]:
    time_ms, memory_mb = record.get("time_limit_ms"), record.get("memory_limit_mb")
    for name, value in (("time_limit_ms", time_ms), ("memory_limit_mb", memory_mb)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
            raise RecordError(f"{name} must be a positive integer, not {value!r}")
    if time_ms is None and memory_mb is None:
        return {"time_limit_ms": UNSTATED_TIME_MS, "memory_limit_mb": UNSTATED_MEMORY_MB, "limits_given": False}
    return {"time_limit_ms": time_ms or UNSTATED_TIME_MS, "memory_limit_mb": memory_mb or UNSTATED_MEMORY_MB,
            "limits_given": time_ms is not None and memory_mb is not None}
