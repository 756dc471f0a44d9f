"""``assert f(ARGS) == E`` into a function-level test: the one reading of assertions.

Benchmarks write their tests as assertions (HumanEval's ``check(candidate)``) and models
answer with them (CodeT's generated tests). A test of a function-level problem is a
pair: the JSON array of positional arguments (``tczoo.execution.programs``; a Python
literal where JSON cannot carry them) and the ``repr`` of the expected value. This
module reads the pair from the source alone -- nothing is executed: arguments and the
expected value must be literals or constant arithmetic over literals (``3 * 19``,
``[1] * 4``, ``2.0 / 3.0``), folded here under size bounds.

Forms read (``kind`` says which):

- ``f(ARGS) == E``, ``E == f(ARGS)``, ``f(ARGS) is E``, ``tuple(f(ARGS)) == tuple(E)``
  (``list`` too: tczoo compares tuples and lists alike): *literal*;
- ``f(ARGS)`` / ``not f(ARGS)``: expected ``True`` / ``False``: *truth* (the assert
  accepts any truthy / falsy value; the pair asks for the bool);
- ``abs(f(ARGS) - E) < TOL``: expected E: *approx* (compared with tczoo's functional
  tolerance, 1e-9 relative, instead of TOL).
"""

from __future__ import annotations

import ast
import json
import math
import operator
from dataclasses import dataclass
from typing import Any, Callable

MAX_LITERAL_CHARS = 1 << 20  # an argument list or a value read back with ast.literal_eval
_MAX_SIZE = 100_000  # longest string/sequence constant folding builds


@dataclass(frozen=True)
class AssertPair:
    kind: str  # literal, truth, approx
    input: str  # the arguments (encode_args)
    output: str  # repr of the expected value


def assert_pair(stmt: ast.stmt, function: str) -> AssertPair | None:
    """The pair an ``assert`` about ``function`` states, when the source alone decides it."""
    if not isinstance(stmt, ast.Assert):
        return None
    test = stmt.test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        call = _call_of(test.operand, function)
        return _pair("truth", call, False) if call is not None else None
    call = _call_of(test, function)
    if call is not None:
        return _pair("truth", call, True)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(op, (ast.Eq, ast.Is)):
        for side, other in ((left, right), (right, left)):
            call = _call_of(_unwrap_sequence(side), function)
            if call is not None and not mentions(other, function):
                ok, value = constant(_unwrap_sequence(other))
                return _pair("literal", call, value) if ok else None
        return None
    if (isinstance(op, (ast.Lt, ast.LtE)) and isinstance(left, ast.Call) and isinstance(left.func, ast.Name)
            and left.func.id == "abs" and len(left.args) == 1 and isinstance(left.args[0], ast.BinOp)
            and isinstance(left.args[0].op, ast.Sub)):
        call = _call_of(left.args[0].left, function)
        ok, value = constant(left.args[0].right)
        if call is not None and ok and isinstance(value, (int, float)) and not isinstance(value, bool):
            return _pair("approx", call, value)
    return None


def call_pair(node: ast.expr, function: str, expected: Any) -> AssertPair | None:
    """The pair for the call ``node`` (``function(ARGS)``) with a known expected value."""
    call = _call_of(node, function)
    return _pair("literal", call, expected) if call is not None else None


def mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def asserts_in(code: str) -> list[ast.Assert]:
    """The top-level ``assert`` statements of ``code``; when the whole does not parse (a
    model's answer cut off or mixed with prose), those of each line that parses alone."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    if tree is not None:
        return [s for s in tree.body if isinstance(s, ast.Assert)]
    out = []
    for line in code.splitlines():
        if line.lstrip().startswith("assert"):
            try:
                body = ast.parse(line.strip()).body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            out += [s for s in body if isinstance(s, ast.Assert)]
    return out


def encode_args(values: list[Any]) -> str | None:
    """A function-level test input for positional ``values``: their JSON array, or, where
    JSON cannot carry them (tuples, sets, non-string keys), their Python literal when it
    reads back as exactly the same values; None when neither does (non-finite floats)."""
    if not json_problem(values):
        return json.dumps(values)
    text = repr(values)
    return text if round_trips(text) else None


def json_problem(values: Any) -> str:
    """Why JSON cannot carry ``values`` as they are ("" when it can)."""
    if isinstance(values, bool) or values is None or isinstance(values, (int, str)):
        return ""
    if isinstance(values, float):
        return "" if math.isfinite(values) else f"non-finite float {values!r}"
    if isinstance(values, list):
        return next((why for v in values if (why := json_problem(v))), "")
    if isinstance(values, dict):
        if not all(isinstance(k, str) for k in values):
            return "a dict with non-string keys"
        return next((why for v in values.values() if (why := json_problem(v))), "")
    return f"a {type(values).__name__} argument"


def round_trips(text: str) -> bool:
    """Whether ``text`` is a Python literal whose repr is ``text`` again."""
    if len(text) > MAX_LITERAL_CHARS:
        return False
    try:
        return repr(ast.literal_eval(text)) == text
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def decode_value(text: str, *, json_first: bool = True) -> tuple[bool, Any]:
    """(True, value) of a test's text: JSON (benchmarks' inputs and outputs) or a Python
    literal (tczoo's, where JSON cannot carry the values), in that order unless
    ``json_first`` is False; (False, None) when neither reads it, or it is over
    ``MAX_LITERAL_CHARS`` or nested past the parsers' recursion."""
    if len(text) > MAX_LITERAL_CHARS:
        return False, None
    readers = (json.loads, ast.literal_eval) if json_first else (ast.literal_eval, json.loads)
    for read in readers:
        try:
            return True, read(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return False, None


def literal_problem(text: str) -> str:
    """Why ``text`` (a repr) is not a Python literal ("" when it is)."""
    if len(text) > MAX_LITERAL_CHARS:
        return "a value over 1 MB"
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return f"the value {text[:80]!r} has no literal repr"
    return ""


def is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------- constants


_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}


def constant(node: ast.expr) -> tuple[bool, Any]:
    """(True, value) when ``node`` is a literal or constant arithmetic over literals."""
    try:
        value = _fold(node, 0)
        _spelled(value)
        return True, value
    except (ValueError, TypeError, ArithmeticError, RecursionError, MemoryError):
        return False, None


def constant_text(text: str) -> tuple[bool, Any]:
    try:
        return constant(ast.parse(text.strip(), mode="eval").body)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False, None


def _fold(node: ast.expr, depth: int) -> Any:
    if depth > 50:
        raise ValueError("too deep")
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (str, bytes)) and len(node.value) > _MAX_SIZE:
            raise ValueError("too large")
        return node.value
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [_fold(e, depth + 1) for e in node.elts]
        return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)](items)
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise ValueError("dict unpacking")
        return {_fold(k, depth + 1): _fold(v, depth + 1) for k, v in zip(node.keys, node.values) if k is not None}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
        value = _fold(node.operand, depth + 1)
        unary: dict[type, Callable[[Any], Any]] = {ast.USub: operator.neg, ast.UAdd: operator.pos,
                                                   ast.Not: operator.not_}
        return unary[type(node.op)](value)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        a, b = _fold(node.left, depth + 1), _fold(node.right, depth + 1)
        _bounded(node.op, a, b)
        value = _BINOPS[type(node.op)](a, b)
        _spelled(value)
        return value
    raise ValueError("not a constant")


def _spelled(value: Any) -> int:
    """How many elements and characters ``value`` spells out when it is written down
    (``repr``, JSON), a list repeated by reference counted each time it appears:
    ``[[[0] * 100] * 100] * 100`` folds cheaply into shared lists but writes a million
    zeros. Past ``_MAX_SIZE``: ValueError, after at most that many steps."""
    total, stack = 0, [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (str, bytes)):
            total += len(v)
        elif isinstance(v, (list, tuple, set, frozenset)):
            total += len(v)
            if total <= _MAX_SIZE:
                stack.extend(v)
        elif isinstance(v, dict):
            total += len(v)
            if total <= _MAX_SIZE:
                stack.extend(v.keys())
                stack.extend(v.values())
        if total > _MAX_SIZE:
            raise ValueError("too large")
    return total


def _bounded(op: ast.operator, a: Any, b: Any) -> None:
    if isinstance(op, ast.Pow):
        if not all(isinstance(x, (int, float)) for x in (a, b)) or abs(b) > 256 or abs(a) > 10**6:
            raise ValueError("power out of bounds")
    if isinstance(op, ast.Mod) and isinstance(a, (str, bytes)):
        raise ValueError("string formatting")  # "%0999999999d" % 1 would write a gigabyte
    if isinstance(op, ast.Mult):
        for seq, n in ((a, b), (b, a)):
            if isinstance(seq, (str, bytes, list, tuple)) and isinstance(n, int) and len(seq) * n > _MAX_SIZE:
                raise ValueError("too large")
    for x in (a, b):
        if isinstance(x, int) and not isinstance(x, bool) and x.bit_length() > 4096:
            raise ValueError("too large")


def _unwrap_sequence(node: ast.expr) -> ast.expr:
    """``tuple(X)`` / ``list(X)`` -> X (tczoo compares tuples and lists alike)."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("tuple", "list")
            and len(node.args) == 1 and not node.keywords):
        return node.args[0]
    return node


def _call_of(node: ast.expr, function: str) -> ast.Call | None:
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == function
            and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)):
        return node
    return None


def _pair(kind: str, call: ast.Call, expected: Any) -> AssertPair | None:
    values = []
    for arg in call.args:
        ok, value = constant(arg)
        if not ok:
            return None
        values.append(value)
    args = encode_args(values)
    if args is None or literal_problem(repr(expected)):
        return None
    return AssertPair(kind, args, repr(expected))
