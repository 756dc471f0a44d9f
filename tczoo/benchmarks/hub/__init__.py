"""Converters from upstream dataset records (one dict per problem, exactly as the hub
serves them) into :class:`tczoo.schema.Problem`. One module per upstream schema; each
exposes ``SCHEMA`` (its name in ``SCHEMA:PATH`` specs), ``REQUIRED`` (fields a record must
have) and ``to_problem(record, index) -> Problem``. Reading files and the hub is
:mod:`tczoo.benchmarks.loaders`' job."""

from __future__ import annotations

from typing import Any

from tczoo.schema import Language
from tczoo.errors import UserError


class RecordError(UserError, ValueError):
    """A record is not in the schema its loader expects."""


def require(record: Any, fields: tuple[str, ...], schema: str) -> dict[str, Any]:
    if not isinstance(record, dict):
        raise RecordError(f"not a {schema} record: expected a JSON object, got {type(record).__name__}")
    missing = [f for f in fields if f not in record]
    if missing:
        raise RecordError(f"not a {schema} record: missing field(s) {missing}")
    return record


def language_or_none(text: Any) -> Language | None:
    """The language, or None for one tczoo cannot run (counted, not fatal)."""
    try:
        return Language.parse(str(text))
    except ValueError:
        return None
