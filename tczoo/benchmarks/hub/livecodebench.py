"""LiveCodeBench code generation (``livecodebench/code_generation_lite``, ``test*.jsonl``).

Fields: ``question_title``, ``question_content``, ``platform``, ``question_id``,
``contest_id``, ``contest_date``, ``starter_code``, ``difficulty``,
``public_test_cases`` (a JSON string: list of ``{input, output, testtype}`` with
``testtype`` ``"stdin"`` or ``"functional"``), ``private_test_cases`` (the same list,
either plain JSON or ``base64(zlib(pickle(json string)))``), ``metadata`` (a JSON
string, e.g. ``{"func_name": "maxSum"}`` for functional problems).

Functional tests keep LiveCodeBench's encoding: ``input`` is one JSON value per line
(the arguments), ``output`` one JSON value; the function name is ``entry_point``.
The pickle layer is read with an unpickler that refuses every global, so a crafted
file can only yield plain strings, never run code.
"""

from __future__ import annotations

import base64
import io
import json
import pickle
import zlib
from typing import Any

from tczoo.benchmarks.hub import RecordError, require
from tczoo.schema import GoldenTest, Problem, Sample

SCHEMA = "livecodebench"
REQUIRED = ("question_title", "question_content", "question_id", "public_test_cases", "private_test_cases")


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):  # noqa: D401
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from test data")


def decode_test_cases(blob: Any) -> list[dict[str, Any]]:
    """The test list from plain JSON or from base64(zlib(pickle(json)))."""
    if isinstance(blob, list):
        return blob
    if not blob:
        return []
    if not isinstance(blob, str):
        raise RecordError(f"test cases must be a string or a list, got {type(blob).__name__}")
    try:
        return json.loads(blob)
    except json.JSONDecodeError:
        pass
    try:
        raw = zlib.decompress(base64.b64decode(blob.encode("ascii"), validate=False))
        inner = _PlainUnpickler(io.BytesIO(raw)).load()
        if isinstance(inner, bytes):
            inner = inner.decode()
        return json.loads(inner) if isinstance(inner, str) else inner
    except (ValueError, zlib.error, pickle.UnpicklingError, EOFError) as exc:
        raise RecordError(f"test cases are neither JSON nor base64(zlib(pickle(json))): {exc}") from None


def encode_test_cases(tests: list[dict[str, Any]]) -> str:
    """The inverse of the compressed form (used to build fixtures)."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(tests)))).decode("ascii")


def to_problem(record: dict[str, Any], index: int = 0) -> Problem:
    rec = require(record, REQUIRED, SCHEMA)
    qid = str(rec["question_id"])
    public = decode_test_cases(rec["public_test_cases"])
    private = decode_test_cases(rec["private_test_cases"])
    meta_field = rec.get("metadata") or {}
    try:
        metadata = json.loads(meta_field) if isinstance(meta_field, str) else dict(meta_field)
    except json.JSONDecodeError:
        raise RecordError(f"{qid}: metadata is not JSON") from None
    kinds = {t.get("testtype", "stdin") for t in public + private}
    functional = "functional" in kinds
    if functional and not metadata.get("func_name"):
        raise RecordError(f"{qid}: functional tests but no func_name in metadata")
    for t in public + private:
        if not isinstance(t, dict) or "input" not in t or "output" not in t:
            raise RecordError(f"{qid}: a test case lacks input/output")
    golden = [GoldenTest(input=t["input"], output=t["output"], name=f"public-{i}") for i, t in enumerate(public)]
    golden += [GoldenTest(input=t["input"], output=t["output"], name=f"private-{i}") for i, t in enumerate(private)]
    meta: dict[str, Any] = {
        "platform": rec.get("platform", ""),
        "contest_id": rec.get("contest_id", ""),
        "contest_date": str(rec.get("contest_date", "")),
        "difficulty": rec.get("difficulty", ""),
        "testtype": "functional" if functional else "stdin",
        "starter_code": rec.get("starter_code") or "",
        "metadata": metadata,
        "time_limit_default": True,  # LiveCodeBench states no limits
    }
    return Problem(
        id=qid,
        title=str(rec["question_title"]),
        statement=rec["question_content"] or "",
        samples=[Sample(input=t["input"], output=t["output"]) for t in public],
        golden_tests=golden,
        entry_point=metadata.get("func_name") if functional else None,
        tags=[t for t in (rec.get("platform"), rec.get("difficulty")) if t],
        source=SCHEMA,
        meta=meta,
    )
