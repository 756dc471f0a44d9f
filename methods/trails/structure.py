"""A program as the statement tree HoarePrompt walks: statements, conditionals, loops,
function bodies.

Two front ends build the same tree: Python through ``ast``; C, C++ and Java through a
small tokenizer and statement splitter (comments, strings and preprocessor lines are
understood; expressions are never parsed, only bracketed). Nothing here runs the
program. Every node keeps its source text, so the annotated program shows the code as
written.

Nodes:
- ``Stmt``: one statement (``kind`` "simple", "return", or "skip" for imports,
  includes and other lines that change no state);
- ``Cond``: ``if`` with its branches (``else if`` is a ``Cond`` in the else branch);
- ``Loop``: ``for``/``while``/``do`` with its body;
- ``Func``: a function definition with its body;
- ``Block``: any other compound statement (class, try, with, namespace, ``{...}``).
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass, field
from typing import Union

from tczoo.schema import Language


@dataclass
class Stmt:
    code: str
    kind: str = "simple"  # simple | return | skip


@dataclass
class Cond:
    head: str  # "if (x > 0)" / "if x > 0:"
    condition: str
    then: list["Node"] = field(default_factory=list)
    orelse: list["Node"] = field(default_factory=list)


@dataclass
class Loop:
    head: str
    code: str  # the whole loop as written
    body: list["Node"] = field(default_factory=list)


@dataclass
class Func:
    head: str
    body: list["Node"] = field(default_factory=list)


@dataclass
class Block:
    head: str  # "" for a bare {...}
    body: list["Node"] = field(default_factory=list)


Node = Union[Stmt, Cond, Loop, Func, Block]


class StructureError(ValueError):
    """The program cannot be split into statements (a Python syntax error)."""


def program_tree(code: str, language: Language) -> list[Node]:
    if language is Language.PYTHON:
        return python_tree(code)
    return c_tree(code)


def count_statements(nodes: list[Node]) -> int:
    """Statements that cost a model call when walked once (skips excluded)."""
    total = 0
    for n in nodes:
        if isinstance(n, Stmt):
            total += n.kind != "skip"
        elif isinstance(n, Cond):
            total += 1 + count_statements(n.then) + count_statements(n.orelse)
        elif isinstance(n, Loop):
            total += 1 + count_statements(n.body)
        else:
            total += count_statements(n.body)
    return total


# --------------------------------------------------------------------------- Python


def python_tree(code: str) -> list[Node]:
    try:
        tree = ast.parse(code)
        return [_py(n, code) for n in tree.body]
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise StructureError(f"not valid Python: {exc}") from None
    except (RecursionError, MemoryError):
        raise StructureError("the program is nested too deeply to analyse") from None


def _segment(code: str, node: ast.AST) -> str:
    """The node's source, its lines dedented together (relative indentation kept)."""
    text = ast.get_source_segment(code, node, padded=True)
    if text is not None:
        return textwrap.dedent(text)
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 - a node unparse cannot print
        return type(node).__name__


def _py(node: ast.stmt, code: str) -> Node:
    body = lambda stmts: [_py(s, code) for s in stmts]  # noqa: E731
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.Pass, ast.Global, ast.Nonlocal)):
        return Stmt(_segment(code, node), "skip")
    if isinstance(node, ast.Return):
        return Stmt(_segment(code, node), "return")
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        head = f"def {node.name}({ast.unparse(node.args)}):"
        return Func(head, body(node.body))
    if isinstance(node, ast.ClassDef):
        return Block(f"class {node.name}:", body(node.body))
    if isinstance(node, ast.If):
        cond = ast.unparse(node.test)
        return Cond(f"if {cond}:", cond, body(node.body), body(node.orelse))
    if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
        if isinstance(node, ast.While):
            head = f"while {ast.unparse(node.test)}:"
        else:
            target = node.target
            names = (", ".join(ast.unparse(e) for e in target.elts) if isinstance(target, ast.Tuple)
                     else ast.unparse(target))
            head = f"for {names} in {ast.unparse(node.iter)}:"
        loop = Loop(head, _segment(code, node), body(node.body))
        if node.orelse:  # for/while ... else: the else part runs after the loop
            return Block("", [loop, Block("else (after the loop ends without break):", body(node.orelse))])
        return loop
    if isinstance(node, (ast.With, ast.AsyncWith)):
        items = ", ".join(ast.unparse(i) for i in node.items)
        return Block(f"with {items}:", body(node.body))
    if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
        parts: list[Node] = [Block("try:", body(node.body))]
        for h in node.handlers:
            parts.append(Stmt(_segment(code, h)))
        if node.orelse:
            parts.append(Block("else (no exception):", body(node.orelse)))
        if node.finalbody:
            parts.append(Block("finally:", body(node.finalbody)))
        return Block("", parts)
    return Stmt(_segment(code, node))


# --------------------------------------------------------------------------- C, C++, Java

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
  | (?P<pp>(?<![^\n])[ \t]*\#[^\n]*(?:\\\n[^\n]*)*)
  | (?P<str>R"(?P<delim>[^()\\\s]{0,16})\(.*?\)(?P=delim)"|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<word>[A-Za-z_$][\w$]*)
  | (?P<num>\d[\w.']*)
  | (?P<op>->|::|[^\s\w])
""", re.S | re.X)


@dataclass
class _Tok:
    kind: str
    text: str
    start: int
    end: int


def _tokens(code: str) -> list[_Tok]:
    out, pos = [], 0
    while pos < len(code):
        m = _TOKEN.match(code, pos)
        if m is None or m.end() == pos:  # cannot happen with the op fallback; be safe
            pos += 1
            continue
        kind = m.lastgroup if m.lastgroup != "delim" else "str"
        if kind not in ("ws", "comment"):
            out.append(_Tok(kind, m.group(0), m.start(), m.end()))
        pos = m.end()
    return out


_OPEN, _CLOSE = {"(": ")", "[": "]", "{": "}"}, {")", "]", "}"}
_SKIP_HEADS = {"using", "typedef", "import", "package"}
_AGGREGATES = {"struct", "class", "union", "enum"}
_AFTER_PARAMS = {"const", "noexcept", "override", "final", "mutable", "throws", "volatile"}
MAX_NEST = 60  # blocks nested deeper than this are kept as one statement (no recursion blow-up)


class _CParser:
    def __init__(self, code: str):
        self.code = code
        self.toks = _tokens(code)
        self.n = len(self.toks)
        self.depth = 0

    def text(self, i: int, j: int) -> str:
        """Source of tokens i..j-1 as written, its lines dedented together."""
        if i >= j:
            return ""
        start = self.toks[i].start
        line_start = self.code.rfind("\n", 0, start) + 1
        if not self.code[line_start:start].strip():
            start = line_start  # keep the first line's indentation so dedent sees it
        return textwrap.dedent(self.code[start:self.toks[j - 1].end]).strip("\n")

    def match(self, i: int) -> int:
        """Index just past the bracket closing the one at ``i`` (or the end)."""
        depth = 0
        for j in range(i, self.n):
            t = self.toks[j].text
            if self.toks[j].kind == "op" and t in _OPEN:
                depth += 1
            elif self.toks[j].kind == "op" and t in _CLOSE:
                depth -= 1
                if depth == 0:
                    return j + 1
        return self.n

    def is_op(self, i: int, text: str) -> bool:
        return i < self.n and self.toks[i].kind == "op" and self.toks[i].text == text

    def is_word(self, i: int, *words: str) -> bool:
        return i < self.n and self.toks[i].kind == "word" and self.toks[i].text in words

    def block(self, i: int, top: bool) -> tuple[list[Node], int]:
        """Statements from ``i`` up to the ``}`` closing the current block (or the end)."""
        nodes = []
        self.depth += 1
        try:
            while i < self.n and not self.is_op(i, "}"):
                if self.depth > MAX_NEST:  # too deep to walk: the rest of the block is one statement
                    end = i
                    while end < self.n and not self.is_op(end, "}"):
                        end = self.match(end) if self.toks[end].kind == "op" and self.toks[end].text in _OPEN \
                            else end + 1
                    nodes.append(Stmt(self.text(i, end)))
                    return nodes, end
                node, j = self.statement(i, top)
                if node is not None:
                    nodes.append(node)
                i = max(j, i + 1)
            return nodes, i
        finally:
            self.depth -= 1

    def statement(self, i: int, top: bool) -> tuple[Node | None, int]:
        t = self.toks[i]
        if t.kind == "pp":
            return Stmt(t.text.strip(), "skip"), i + 1
        if self.is_op(i, ";"):
            return None, i + 1
        if self.is_op(i, "{"):
            body, j = self.block(i + 1, top)
            return Block("", body), j + 1
        if self.is_word(i, "if"):
            return self.conditional(i, top)
        if self.is_word(i, "for", "while") and self.is_op(i + 1, "("):
            close = self.match(i + 1)
            body, j = self.substatement(close, top)
            return Loop(self.text(i, close), self.text(i, j), body), j
        if self.is_word(i, "do"):
            body, j = self.substatement(i + 1, top)
            if self.is_word(j, "while") and self.is_op(j + 1, "("):
                close = self.match(j + 1)
                end = close + 1 if self.is_op(close, ";") else close
                return Loop("do ... " + self.text(j, close), self.text(i, end), body), end
            return Loop("do", self.text(i, j), body), j
        if self.is_word(i, "switch", "try"):
            return Stmt(self.text(i, self.compound_end(i))), self.compound_end(i)
        if self.is_word(i, "namespace"):
            j = i + 1
            while j < self.n and not self.is_op(j, "{") and not self.is_op(j, ";"):
                j += 1
            if self.is_op(j, "{"):
                body, k = self.block(j + 1, top=True)
                return Block(self.text(i, j), body), k + 1
            return Stmt(self.text(i, j + 1), "skip"), j + 1
        if self.is_word(i, "return"):
            j = self.simple_end(i)
            return Stmt(self.text(i, j), "return"), j
        if self.is_word(i, *_SKIP_HEADS):
            j = self.simple_end(i)
            return Stmt(self.text(i, j), "skip"), j
        if top and self.is_word(i, "template") and self.is_op(i + 1, "<"):
            j = i + 2
            depth = 1
            while j < self.n and depth:
                depth += self.is_op(j, "<") - self.is_op(j, ">")
                j += 1
            node, k = self.statement(j, top) if j < self.n else (None, j)
            if isinstance(node, Func):
                node.head = self.text(i, j) + " " + node.head
            return node, k
        return self.generic(i, top)

    def substatement(self, i: int, top: bool) -> tuple[list[Node], int]:
        if i >= self.n:
            return [], i
        node, j = self.statement(i, False)
        if isinstance(node, Block) and not node.head:
            return node.body, j
        return ([node] if node is not None else []), j

    def conditional(self, i: int, top: bool) -> tuple[Node, int]:
        j = i + 1
        if self.is_word(j, "constexpr"):
            j += 1
        if not self.is_op(j, "("):
            end = self.simple_end(i)
            return Stmt(self.text(i, end)), end
        close = self.match(j)
        then, k = self.substatement(close, top)
        orelse: list[Node] = []
        if self.is_word(k, "else"):
            orelse, k = self.substatement(k + 1, top)
        return Cond(self.text(i, close), self.text(j + 1, close - 1), then, orelse), k

    def compound_end(self, i: int) -> int:
        """End of a statement whose body is one or more ``{...}`` (switch, try/catch)."""
        j = i
        while j < self.n:
            if self.is_op(j, "{"):
                j = self.match(j)
                if not self.is_word(j, "catch", "finally"):
                    return j
            elif self.is_op(j, ";"):
                return j + 1
            else:
                j += 1
        return self.n

    def simple_end(self, i: int) -> int:
        """Index just past the ``;`` ending the statement at ``i`` (brackets skipped)."""
        j = i
        while j < self.n:
            if self.is_op(j, ";"):
                return j + 1
            if self.toks[j].kind == "op" and self.toks[j].text in _OPEN:
                j = self.match(j)
                continue
            if self.is_op(j, "}"):
                return j  # an unterminated statement before the block ends
            j += 1
        return self.n

    def generic(self, i: int, top: bool) -> tuple[Node | None, int]:
        """A declaration, expression statement, aggregate or (at top level) a function."""
        j = i
        saw_equals = False
        last = None
        while j < self.n:
            tok = self.toks[j]
            if tok.kind == "op" and tok.text == ";":
                return Stmt(self.text(i, j + 1)), j + 1
            if tok.kind == "op" and tok.text == "=":
                saw_equals = True
            if tok.kind == "op" and tok.text == "{":
                if top and not saw_equals and self.looks_like_function(i, j, last):
                    body, k = self.block(j + 1, top=False)
                    return Func(self.text(i, j), body), k + 1
                if not saw_equals and any(self.is_word(x, *_AGGREGATES) for x in range(i, j)) \
                        and not any(self.is_op(x, "(") for x in range(i, j)):
                    # struct/class/enum: its members are walked like top-level code (methods are functions)
                    body, k = self.block(j + 1, top=True)
                    end = k + 2 if self.is_op(k + 1, ";") else k + 1
                    return Block(self.text(i, j), body), end
                j = self.match(j)
                last = j - 1
                continue
            if tok.kind == "op" and tok.text in ("(", "["):
                j = self.match(j)
                last = j - 1
                continue
            if tok.kind == "op" and tok.text == "}":
                return (Stmt(self.text(i, j)) if j > i else None), j
            last = j
            j += 1
        return Stmt(self.text(i, j)), j

    def looks_like_function(self, i: int, brace: int, last: int | None) -> bool:
        """``head {``: a function definition when the head ends with its parameter list
        (possibly followed by qualifiers, a trailing return type or an initializer list)."""
        if last is None:
            return False
        k = brace - 1
        while k > i and (self.toks[k].kind == "word" and self.toks[k].text in _AFTER_PARAMS):
            k -= 1
        if self.is_op(k, ")"):
            return True
        # trailing return type (auto f() -> T {), or a constructor initializer list
        return any(self.is_op(x, "->") or self.is_op(x, ":") for x in range(i, brace)) and \
            any(self.is_op(x, "(") for x in range(i, brace))


def c_tree(code: str) -> list[Node]:
    parser = _CParser(code)
    nodes: list[Node] = []
    i = 0
    while i < parser.n:
        more, j = parser.block(i, top=True)
        nodes += more
        i = j + 1  # a stray closing brace at top level: step over it
    return nodes
