"""YAML as data, bounded: the one YAML loader for files tczoo did not write.

``yaml.safe_load`` builds no Python objects beyond data, but it still expands aliases:
a few hundred bytes of ``&a [*b, *b, ...]`` ("billion laughs") become a structure of
billions of nodes, and any error message that prints it never ends. ``load_yaml``:

- refuses aliases (``*name``) outright: no package format tczoo reads needs them;
- refuses more than ``max_bytes`` of text, nesting deeper than ``max_depth`` and more
  than ``max_nodes`` nodes;
- says what is wrong in one line with the line number (``YAMLRefused.line``), never
  quoting more than a short excerpt.
"""

from __future__ import annotations

from typing import Any

import yaml

from tczoo.errors import UserError

MAX_BYTES = 1 << 20
MAX_DEPTH = 64
MAX_NODES = 100_000


class YAMLRefused(UserError, ValueError):
    """A YAML text that is not loaded; ``line`` (1-based) where known, else 0."""

    def __init__(self, reason: str, line: int = 0):
        super().__init__(reason)
        self.reason = reason
        self.line = line


class _Bounded(yaml.SafeLoader):
    max_depth = MAX_DEPTH
    max_nodes = MAX_NODES

    def __init__(self, stream: str):
        super().__init__(stream)
        self._depth = 0
        self._nodes = 0

    def compose_node(self, parent, index):  # noqa: ANN001 - PyYAML's signature
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise YAMLRefused(f"aliases (*{str(event.anchor)[:40]}) are not allowed", event.start_mark.line + 1)
        self._nodes += 1
        if self._nodes > self.max_nodes:
            raise YAMLRefused(f"more than {self.max_nodes} values", self.peek_event().start_mark.line + 1)
        self._depth += 1
        try:
            if self._depth > self.max_depth:
                raise YAMLRefused(f"nested deeper than {self.max_depth} levels", self.peek_event().start_mark.line + 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load_yaml(text: str | bytes, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH,
              max_nodes: int = MAX_NODES) -> Any:
    """One YAML document as plain data (dicts, lists, strings, numbers, booleans, None)."""
    if isinstance(text, bytes):
        if len(text) > max_bytes:
            raise YAMLRefused(f"{len(text)} bytes, over the {max_bytes} a YAML file may have")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = text[: exc.start].count(b"\n") + 1
            raise YAMLRefused(f"not UTF-8 (byte 0x{text[exc.start]:02x})", line) from None
    elif len(text) > max_bytes:
        raise YAMLRefused(f"{len(text)} characters, over the {max_bytes} a YAML file may have")
    loader = _Bounded(text)
    loader.max_depth, loader.max_nodes = max_depth, max_nodes
    try:
        return loader.get_single_data()
    except YAMLRefused:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = " ".join(str(exc.problem or exc.context or "not valid YAML").split())[:160]
        raise YAMLRefused(f"not valid YAML: {what}", mark.line + 1 if mark is not None else 0) from None
    except yaml.YAMLError as exc:
        raise YAMLRefused(f"not valid YAML: {' '.join(str(exc).split())[:160]}") from None
    except RecursionError:
        raise YAMLRefused(f"nested deeper than {max_depth} levels") from None
    except (ValueError, OverflowError) as exc:  # e.g. an integer of a million digits
        raise YAMLRefused(f"a value tczoo cannot read: {' '.join(str(exc).split())[:160]}") from None
    finally:
        loader.dispose()
