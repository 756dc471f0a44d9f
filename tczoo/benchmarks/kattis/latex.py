"""A problem statement's LaTeX (problemtools' problem.cls dialect) as readable text.

What a reader, an LLM and STAB's constraint parser need survives: every formula is
kept verbatim between ``$...$`` (``$1 \\le n \\le 10^{5}$``) after the statement's own
macros are expanded (``\\newcommand{\\maxn}{500}`` makes ``$n \\le \\maxn$`` read
``$n \\le 500$``); the ``Input``/``Output`` environments and sections become ``## Input``
/ ``## Output`` headings; lists become ``- item`` lines; ``\\texttt`` becomes
backticks; images are referenced by the name of their file in the statement folder
(``[image: cicada.jpg]``). Layout (spacing, sizes, centering) is dropped.

This is a converter for statements, not a TeX engine: an unknown command keeps the
text of its brace arguments and loses its name. Input is untrusted; macro expansion
is bounded and nesting too deep for the converter keeps the rest of the source as is.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Callable

MAX_SOURCE = 2_000_000  # characters of LaTeX converted; the rest is cut with a note
MAX_EXPANSIONS = 20_000  # user-macro expansions per statement (a macro bomb stops here)
MAX_DEPTH = 200  # nesting of groups/environments the converter follows

IGNORED_ENVS = {"tikzpicture", "comment", "pgfpicture"}
MATH_ENVS = {"equation", "equation*", "align", "align*", "displaymath", "eqnarray", "eqnarray*",
             "gather", "gather*", "multline", "multline*", "math"}
VERBATIM_ENVS = {"verbatim", "verbatim*", "lstlisting", "Verbatim", "minted"}
LIST_ENVS = {"itemize": "-", "enumerate": "1.", "description": "-"}
HEADING_ENVS = {"Input": "Input", "Output": "Output", "Interaction": "Interaction",
                "Task": "Task", "Constraints": "Constraints", "Scoring": "Scoring"}
# Commands whose arguments are layout or metadata: dropped with their arguments.
DROP = {
    "vspace": 1, "vspace*": 1, "hspace": 1, "hspace*": 1, "label": 1, "ref": 1, "cref": 1, "Cref": 1,
    "eqref": 1, "pageref": 1, "setlength": 2, "addtolength": 2, "definecolor": 3, "color": 1,
    "usepackage": 1, "RequirePackage": 1, "documentclass": 1, "pgfplotsset": 1, "usetikzlibrary": 1,
    "sampleheight": 1, "nextsample": 0, "remainingsamples": 0, "fontsize": 2, "selectfont": 0,
}
SPACE = {",": " ", ";": " ", ":": " ", " ": " ", "quad": " ", "qquad": " ", "enspace": " ",
         "thinspace": " ", "space": " ", "/": "", "-": "", "@": "", "!": ""}
SYMBOLS = {
    "ldots": "...", "dots": "...", "cdots": "...", "%": "%", "&": "&", "_": "_", "#": "#", "$": "$",
    "{": "{", "}": "}", "textbackslash": "\\", "ss": "ß", "SS": "SS", "o": "ø", "O": "Ø", "ae": "æ",
    "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å", "AA": "Å", "l": "ł", "L": "Ł", "i": "ı", "LaTeX": "LaTeX",
    "TeX": "TeX", "textasciitilde": "~", "textasciicircum": "^", "textless": "<", "textgreater": ">",
    "textbar": "|", "textquotedbl": '"', "textendash": "–", "textemdash": "—", "times": "×",
    "euro": "€", "pounds": "£", "copyright": "©", "degree": "°", "textdegree": "°", "S": "§",
    "newline": "\n", "linebreak": "\n", "par": "\n\n", "item": "\n- ",
}
ACCENTS = {"'": "\u0301", "`": "\u0300", '"': "\u0308", "^": "\u0302", "~": "\u0303", "=": "\u0304",
           ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328",
           "r": "\u030a", "d": "\u0323", "b": "\u0331"}
TEXT_WRAPPERS = {"emph", "textbf", "textit", "textsl", "textsc", "textrm", "textsf", "textup", "textmd",
                 "textnormal", "mbox", "hbox", "text", "underline", "uline", "textsuperscript",
                 "textsubscript", "MakeUppercase", "MakeLowercase", "mathrm", "fbox", "framebox"}
CODE_WRAPPERS = {"texttt", "verb", "code", "lstinline", "path"}
SECTIONS = {"section", "section*", "subsection", "subsection*", "subsubsection", "subsubsection*",
            "paragraph", "paragraph*", "problemsection"}

_COMMAND = re.compile(r"\\([A-Za-z@]+\*?|.)", re.S)


@dataclass
class Statement:
    title: str = ""
    text: str = ""
    images: list[str] = field(default_factory=list)  # file names in the statement folder
    notes: list[str] = field(default_factory=list)  # what the converter could not do


# --------------------------------------------------------------------------- scanning helpers


def strip_comments(src: str) -> str:
    """Drop ``%`` comments (not ``\\%``); like TeX, a comment also eats the line break
    and the next line's indentation."""
    return re.sub(r"(?<!\\)((?:\\\\)*)%[^\n]*\n?[ \t]*", r"\1", src)


def read_group(src: str, i: int, open_: str = "{", close: str = "}") -> tuple[str, int] | None:
    """``(content, index after the closing brace)`` of the group starting at ``src[i]``
    (after optional spaces), or None when there is no well-formed group there."""
    j = i
    while j < len(src) and src[j] in " \t\n":
        j += 1
    if j >= len(src) or src[j] != open_:
        return None
    depth, k = 0, j
    while k < len(src):
        ch = src[k]
        if ch == "\\":
            k += 2
            continue
        if ch == open_:
            depth += 1
        elif ch == close:
            depth -= 1
            if depth == 0:
                return src[j + 1:k], k + 1
        k += 1
    return None


def read_arg(src: str, i: int) -> tuple[str, int] | None:
    """A macro argument: a brace group, or a single token (``\\frac12``)."""
    group = read_group(src, i)
    if group is not None:
        return group
    j = i
    while j < len(src) and src[j] in " \t\n":
        j += 1
    if j >= len(src) or src[j] in "}":
        return None
    m = _COMMAND.match(src, j)
    if m:
        return m.group(0), m.end()
    return src[j], j + 1


# --------------------------------------------------------------------------- user macros


@dataclass
class Macro:
    nargs: int
    body: str
    default: str | None = None  # default of an optional first argument


_DEFINE = re.compile(r"\\(?:re|provide)?newcommand\*?\s*|\\def\s*")


def extract_macros(src: str, notes: list[str]) -> tuple[str, dict[str, Macro]]:
    """Remove ``\\newcommand``/``\\renewcommand``/``\\def`` definitions; return them."""
    macros: dict[str, Macro] = {}
    out, i = [], 0
    for m in _DEFINE.finditer(src):
        if m.start() < i:
            continue
        j = m.end()
        name_group = read_group(src, j)
        if name_group is not None:
            name, j = name_group[0].strip(), name_group[1]
        else:
            nm = re.match(r"\s*(\\(?:[A-Za-z@]+|.))", src[j:])
            if not nm:
                continue
            name, j = nm.group(1), j + nm.end()
        nargs, default = 0, None
        if src.startswith("\\def", m.start()):
            params = re.match(r"((?:#\d)*)", src[j:])
            nargs, j = len(params.group(1)) // 2, j + params.end()
        else:
            opt = read_group(src, j, "[", "]")
            if opt is not None:
                nargs = int(opt[0]) if opt[0].strip().isdigit() else 0
                j = opt[1]
                opt2 = read_group(src, j, "[", "]")
                if opt2 is not None:
                    default, j = opt2
        body = read_group(src, j)
        if body is None or not name.startswith("\\"):
            notes.append(f"could not read the macro definition at character {m.start()}")
            continue
        out.append(src[i:m.start()])
        macros[name[1:]] = Macro(min(nargs, 9), body[0], default)
        i = body[1]
    out.append(src[i:])
    return "".join(out), macros


def expand_macros(src: str, macros: dict[str, Macro], notes: list[str]) -> str:
    """Replace uses of the statement's own macros by their bodies (bounded)."""
    if not macros:
        return src
    names = sorted(macros, key=len, reverse=True)
    pattern = re.compile(r"\\(" + "|".join(re.escape(n) for n in names) + r")(?![A-Za-z@])")
    budget = MAX_EXPANSIONS
    pos = 0
    while budget > 0:
        m = pattern.search(src, pos)
        if m is None:
            return src
        macro = macros[m.group(1)]
        j, args = m.end(), []
        for index in range(macro.nargs):
            if index == 0 and macro.default is not None:
                opt = read_group(src, j, "[", "]")
                if opt is None:
                    args.append(macro.default)
                    continue
                args.append(opt[0])
                j = opt[1]
                continue
            arg = read_arg(src, j)
            if arg is None:
                break
            args.append(arg[0])
            j = arg[1]
        body = macro.body
        for index, value in enumerate(args, 1):
            body = body.replace(f"#{index}", value)
        # "\macro{}" and "\macro text": the empty group / one space after the name are its end.
        if macro.nargs == 0:
            if src.startswith("{}", j):
                j += 2
        src = src[:m.start()] + body + src[j:]
        pos = m.start()
        budget -= 1
        if len(src) > MAX_SOURCE:
            notes.append("macro expansion grew past the size limit: stopped")
            return src[:MAX_SOURCE]
    notes.append(f"more than {MAX_EXPANSIONS} macro expansions: stopped expanding")
    return src


# --------------------------------------------------------------------------- conversion


def _accent(mark: str, letter: str) -> str:
    letter = {"\\i": "i", "\\j": "j"}.get(letter, letter)
    if len(letter) != 1:
        return letter
    return unicodedata.normalize("NFC", letter + ACCENTS[mark])


class _Converter:
    def __init__(self, find_image: Callable[[str], str | None], notes: list[str]):
        self.find_image = find_image
        self.notes = notes
        self.images: list[str] = []
        self.title = ""

    def image(self, name: str) -> str:
        found = self.find_image(name.strip())
        shown = found or name.strip()
        if found and found not in self.images:
            self.images.append(found)
        return shown

    def convert(self, src: str, depth: int = 0) -> str:
        if depth > MAX_DEPTH:
            self.notes.append("nesting too deep: the rest of a group is kept as LaTeX source")
            return src
        out: list[str] = []
        i, n = 0, len(src)
        while i < n:
            ch = src[i]
            if ch == "$":
                display = src.startswith("$$", i)
                end = src.find("$$" if display else "$", i + (2 if display else 1))
                while end != -1 and not display and src[end - 1] == "\\":
                    end = src.find("$", end + 1)
                if end == -1:
                    out.append(src[i:])
                    break
                body = src[i + (2 if display else 1):end]
                out.append(self.math(body, display))
                i = end + (2 if display else 1)
            elif ch == "\\":
                i = self.command(src, i, out, depth)
            elif ch == "{":
                group = read_group(src, i)
                if group is None:
                    i += 1
                    continue
                out.append(self.convert(group[0], depth + 1))
                i = group[1]
            elif ch == "}":
                i += 1
            elif ch == "~":
                out.append(" ")
                i += 1
            elif src.startswith("``", i) or src.startswith("''", i):
                out.append('"')
                i += 2
            elif src.startswith("---", i):
                out.append("—")
                i += 3
            elif src.startswith("--", i):
                out.append("–")
                i += 2
            else:
                j = i
                while j < n and src[j] not in "$\\{}~`'-":
                    j += 1
                if j == i:
                    j = i + 1
                out.append(src[i:j])
                i = j
        return "".join(out)

    @staticmethod
    def math(body: str, display: bool) -> str:
        body = " ".join(body.split())
        return f"\n$${body}$$\n" if display else f"${body}$"

    def command(self, src: str, i: int, out: list[str], depth: int) -> int:
        m = _COMMAND.match(src, i)
        if m is None:
            out.append("\\")
            return i + 1
        name, j = m.group(1), m.end()
        if name in ACCENTS:
            arg = read_arg(src, j)
            if arg is not None and len(arg[0].strip()) <= 2:
                out.append(_accent(name, arg[0].strip()))
                return arg[1]
        if name == "\\":
            opt = read_group(src, j, "[", "]")
            out.append("\n")
            return opt[1] if opt else j
        if name == "[" or name == "(":
            close = "\\]" if name == "[" else "\\)"
            end = src.find(close, j)
            if end == -1:
                out.append(src[i:])
                return len(src)
            out.append(self.math(src[j:end], name == "["))
            return end + 2
        if name in SPACE:
            out.append(SPACE[name])
            return j
        if name in ("begin", "end"):
            return self.environment(src, i, name, j, out, depth)
        if name in SYMBOLS:
            out.append(SYMBOLS[name])
            return j + (2 if name.isalpha() and src.startswith("{}", j) else 0)
        args = self._args(src, j)
        if name in DROP:
            return self._skip_args(src, j, DROP[name])
        if name == "problemname":
            group = read_group(src, j)
            if group:
                self.title = self.convert(group[0], depth + 1).strip()
                return group[1]
        if name in SECTIONS:
            group = read_group(src, j)
            if group:
                level = "##" if name.startswith("section") or name == "problemsection" else "###"
                out.append(f"\n\n{level} {self.convert(group[0], depth + 1).strip()}\n")
                return group[1]
        if name in CODE_WRAPPERS:
            if name == "verb" and j < len(src):
                delim = src[j]
                end = src.find(delim, j + 1)
                if end != -1:
                    out.append(f"`{src[j + 1:end]}`")
                    return end + 1
            group = read_group(src, j)
            if group:
                inner = self.convert(group[0], depth + 1)
                out.append(f"`{inner}`" if inner.strip() else inner)
                return group[1]
        if name in TEXT_WRAPPERS:
            group = read_arg(src, j)
            if group:
                out.append(self.convert(group[0], depth + 1))
                return group[1]
        if name == "href":
            url, text = read_group(src, j), None
            if url:
                text = read_group(src, url[1])
            if url and text:
                out.append(f"{self.convert(text[0], depth + 1)} ({url[0].strip()})")
                return text[1]
        if name == "url":
            group = read_group(src, j)
            if group:
                out.append(group[0].strip())
                return group[1]
        if name == "includegraphics":
            k = j
            opt = read_group(src, k, "[", "]")
            if opt:
                k = opt[1]
            group = read_group(src, k)
            if group:
                out.append(f"[image: {self.image(group[0])}]")
                return group[1]
        if name == "illustration":  # \illustration{width}{file}{caption}
            parts, k = [], j
            for _ in range(3):
                group = read_group(src, k)
                if group is None:
                    break
                parts.append(group[0])
                k = group[1]
            if len(parts) == 3:
                caption = " ".join(self.convert(parts[2], depth + 1).split())
                out.append(f"[illustration: {self.image(parts[1])}{' — ' + caption if caption else ''}]\n")
                return k
        if name == "caption":
            group = read_group(src, j)
            if group:
                out.append(f"\n(Figure: {' '.join(self.convert(group[0], depth + 1).split())})\n")
                return group[1]
        if name == "footnote":
            group = read_group(src, j)
            if group:
                out.append(f" (footnote: {' '.join(self.convert(group[0], depth + 1).split())})")
                return group[1]
        if name in ("input", "include"):
            group = read_group(src, j)
            if group:
                out.append(f"[see {self.image(group[0])}]")
                return group[1]
        # Unknown: drop the name, keep the text of its brace arguments.
        k = j
        star = src.startswith("*", k)
        if star:
            k += 1
        opt = read_group(src, k, "[", "]") if args else None
        if opt:
            k = opt[1]
        for _ in range(args):
            group = read_group(src, k)
            if group is None:
                break
            out.append(self.convert(group[0], depth + 1))
            k = group[1]
        return k

    @staticmethod
    def _args(src: str, j: int) -> int:
        """How many brace groups follow a command directly (at most 3)."""
        count, k = 0, j
        if src.startswith("*", k):
            k += 1
        opt = read_group(src, k, "[", "]")
        if opt:
            k = opt[1]
        while count < 3 and k < len(src) and src[k] == "{":
            group = read_group(src, k)
            if group is None:
                break
            count, k = count + 1, group[1]
        return count

    @staticmethod
    def _skip_args(src: str, j: int, count: int) -> int:
        k = j
        opt = read_group(src, k, "[", "]")
        if opt:
            k = opt[1]
        for _ in range(count):
            group = read_group(src, k)
            if group is None:
                break
            k = group[1]
        return k

    def environment(self, src: str, i: int, which: str, j: int, out: list[str], depth: int) -> int:
        group = read_group(src, j)
        if group is None:
            return j
        env, k = group[0].strip(), group[1]
        if which == "end":  # an \end without its \begin (or the document's): nothing to show
            return k
        end_tag = f"\\end{{{env}}}"
        body_end = self._matching_end(src, k, env)
        if body_end == -1:
            self.notes.append(f"\\begin{{{env}}} is never closed")
            body_end = len(src)
        body, after = src[k:body_end], min(len(src), body_end + len(end_tag))
        if env in IGNORED_ENVS:
            out.append("[picture]")
        elif env in MATH_ENVS:
            out.append(self.math(body, True))
        elif env in VERBATIM_ENVS:
            out.append(f"\n```\n{body.strip(chr(10))}\n```\n")
        elif env in HEADING_ENVS:
            out.append(f"\n\n## {HEADING_ENVS[env]}\n\n{self.convert(body, depth + 1).strip()}\n\n")
        elif env in LIST_ENVS:
            out.append("\n" + self.list_items(body, LIST_ENVS[env], depth) + "\n")
        elif env in ("tabular", "tabular*", "array", "tabularx"):
            out.append("\n" + self.table(body, depth) + "\n")
        else:  # figure, center, minipage, afterSample, document ...: their content
            out.append(self.convert(self._strip_env_args(body), depth + 1))
        return after

    @staticmethod
    def _matching_end(src: str, k: int, env: str) -> int:
        begin_tag, end_tag = f"\\begin{{{env}}}", f"\\end{{{env}}}"
        depth, pos = 1, k
        while True:
            nb, ne = src.find(begin_tag, pos), src.find(end_tag, pos)
            if ne == -1:
                return -1
            if nb != -1 and nb < ne:
                depth, pos = depth + 1, nb + len(begin_tag)
                continue
            depth -= 1
            if depth == 0:
                return ne
            pos = ne + len(end_tag)

    @staticmethod
    def _strip_env_args(body: str) -> str:
        """``[h]`` after \\begin{figure}, ``{0.5\\textwidth}`` after \\begin{minipage}."""
        m = re.match(r"\s*\[[^\]\n]*\]", body)
        return body[m.end():] if m else body

    def list_items(self, body: str, marker: str, depth: int) -> str:
        body = self._strip_env_args(body)
        pieces = re.split(r"\\item(?![A-Za-z@])", body)
        lines = []
        number = 0
        for piece in pieces[1:]:
            label = ""
            opt = read_group(piece, 0, "[", "]")
            if opt:
                label, piece = self.convert(opt[0], depth + 1).strip() + " ", piece[opt[1]:]
            text = self.convert(piece, depth + 1).strip()
            text = re.sub(r"[ \t]*\n[ \t]*", "\n  ", text)
            number += 1
            bullet = f"{number}." if marker == "1." else marker
            lines.append(f"{bullet} {label}{text}".rstrip())
        lead = self.convert(pieces[0], depth + 1).strip()
        return "\n".join(([lead] if lead else []) + lines)

    def table(self, body: str, depth: int) -> str:
        spec = read_group(body, 0)
        if spec:
            body = body[spec[1]:]
        rows = []
        for row in re.split(r"\\\\", body):
            row = re.sub(r"\\(?:hline|toprule|midrule|bottomrule|cline\{[^}]*\})", "", row)
            cells = [" ".join(self.convert(c, depth + 1).split()) for c in re.split(r"(?<!\\)&", row)]
            if any(cells):
                rows.append(" | ".join(cells))
        return "\n".join(rows)


def _tidy(text: str) -> str:
    lines, verbatim = [], False
    for line in text.split("\n"):
        if line.strip() == "```":
            verbatim = not verbatim
            lines.append("```")
            continue
        if verbatim:
            lines.append(line.rstrip())
            continue
        line = line.strip() if not line.startswith(("  ", "- ")) else line.rstrip()
        lines.append(re.sub(r"(?<=\S)[ \t]{2,}", " ", line))
    text = "\n".join(lines)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip() + "\n"


def latex_to_text(source: str, find_image: Callable[[str], str | None] = lambda name: None) -> Statement:
    """Convert a statement; ``find_image(name)`` gives the file a graphic name refers to."""
    notes: list[str] = []
    if len(source) > MAX_SOURCE:
        notes.append(f"statement longer than {MAX_SOURCE} characters: the rest was cut")
        source = source[:MAX_SOURCE]
    src = strip_comments(source.replace("\r\n", "\n"))
    doc = re.search(r"\\begin\{document\}(.*?)(?:\\end\{document\}|$)", src, re.S)
    if doc:  # a standalone document: only its body is text
        src = doc.group(1)
    src = re.sub(r"\n[ \t]+", "\n", src)  # TeX ignores indentation; markdown would not
    src, macros = extract_macros(src, notes)
    src = expand_macros(src, macros, notes)
    converter = _Converter(find_image, notes)
    try:
        text = converter.convert(src)
    except RecursionError:
        notes.append("nesting too deep to convert: the statement is kept as LaTeX source")
        text = src
    return Statement(title=converter.title, text=_tidy(text), images=converter.images, notes=notes)
