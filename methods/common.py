"""Helpers shared by several methods (parsing answers into test cases)."""

from __future__ import annotations

from typing import Any

from tczoo.parsing import ParseError, as_stdin, looks_like_solution, parse_json
from tczoo.schema import TestCase, TestSuite


def tests_from_json_answer(
    suite: TestSuite, text: str, *, with_outputs: bool, origin: str, item: str = ""
) -> list[TestCase]:
    """Test cases from an answer holding a JSON list of {"input", "output"} (or inputs).

    Accepts a bare list of inputs, objects with ``input``/``stdin`` keys, inputs given
    as structured values (turned into stdin text), and a truncated list (complete
    items kept). Every item or answer that cannot be used is recorded on the suite.
    """
    try:
        data = parse_json(text)
    except ParseError as exc:
        reason = "solution_instead_of_tests" if looks_like_solution(text) else exc.reason
        suite.fail("parse", reason, exc.detail or text[:300], item)
        return []
    if isinstance(data, dict):
        for key in ("tests", "test_cases", "testcases", "cases", "inputs"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
        else:
            data = [data]
    if not isinstance(data, list):
        suite.fail("parse", "not_a_list", repr(data)[:300], item)
        return []
    out: list[TestCase] = []
    for i, entry in enumerate(data):
        where = f"{item}#{i}" if item else f"#{i}"
        raw_in: Any
        raw_out: Any = None
        if isinstance(entry, dict):
            raw_in = next((entry[k] for k in ("input", "stdin", "input_str", "in") if k in entry), None)
            raw_out = next((entry[k] for k in ("output", "expected_output", "stdout", "out", "expected") if k in entry), None)
        else:
            raw_in = entry
        if raw_in is None:
            suite.fail("parse", "missing_input", repr(entry)[:300], where)
            continue
        try:
            stdin = as_stdin(raw_in)
        except ParseError as exc:
            suite.fail("parse", exc.reason, exc.detail, where)
            continue
        expected = None
        if with_outputs:
            if raw_out is None:
                suite.fail("parse", "missing_output", repr(entry)[:300], where)
                continue
            try:
                expected = as_stdin(raw_out)
            except ParseError as exc:
                suite.fail("parse", exc.reason, exc.detail, where)
                continue
        out.append(TestCase(input=stdin, output=expected, origin=origin))
    return out


def dedupe(tests: list[TestCase]) -> list[TestCase]:
    """Drop repeated inputs (whitespace-normalised), keeping the first occurrence."""
    seen: set[str] = set()
    kept = []
    for t in tests:
        key = " ".join(t.input.split())
        if key not in seen:
            seen.add(key)
            kept.append(t)
    return kept
