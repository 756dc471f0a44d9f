"""Jinja prompt templates: ``prompts/<method>/<step>.j2``.

A template defines ``{% block system %}`` and ``{% block user %}`` (either may be absent);
``render`` returns the chat messages. ``StrictUndefined`` turns a missing variable into
an error instead of a silently empty prompt. No prompt text lives in Python files.

A template whose answer is JSON may also define ``{% block answer_schema %}``: the JSON
Schema of the answer the user block describes, rendered with the same variables (so
``"maxItems": {{ n_tests }}`` follows the prompt). ``response_format`` turns it into
the request parameter of that name; backends that can enforce it (the embedded model,
with a grammar) make the answer stop when the value is complete.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jinja2

from tczoo.paths import data_root


class PromptError(ValueError):
    pass


class Prompts:
    def __init__(self, root: Path | None = None):
        self.root = Path(root) if root else data_root("prompts")
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(self.root)),
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
            autoescape=False,
        )

    def render(self, name: str, **variables) -> list[dict]:
        """Messages for template ``name`` (``"crux/generate"`` or ``"crux/generate.j2"``)."""
        path = name if name.endswith(".j2") else f"{name}.j2"
        try:
            template = self.env.get_template(path)
            context = template.new_context(variables)
            messages = []
            for role in ("system", "user"):
                block = template.blocks.get(role)
                if block is None:
                    continue
                text = "".join(block(context)).strip()
                if text:
                    messages.append({"role": role, "content": text})
        except jinja2.TemplateNotFound as exc:
            raise PromptError(f"prompt template {path!r} not found under {self.root}") from exc
        except jinja2.UndefinedError as exc:
            raise PromptError(f"prompt template {path!r}: {exc}") from exc
        if not messages:
            raise PromptError(f"prompt template {path!r} defines no system or user block")
        return messages

    def response_format(self, name: str, **variables) -> dict[str, Any] | None:
        """``{"type": "json_schema", ...}`` from the template's ``answer_schema`` block,
        or None when the template has none."""
        path = name if name.endswith(".j2") else f"{name}.j2"
        try:
            template = self.env.get_template(path)
            block = template.blocks.get("answer_schema")
            if block is None:
                return None
            text = "".join(block(template.new_context(variables))).strip()
        except jinja2.TemplateNotFound as exc:
            raise PromptError(f"prompt template {path!r} not found under {self.root}") from exc
        except jinja2.UndefinedError as exc:
            raise PromptError(f"prompt template {path!r}: {exc}") from exc
        try:
            schema = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PromptError(f"prompt template {path!r}: answer_schema is not JSON: {exc}") from exc
        if not isinstance(schema, dict):
            raise PromptError(f"prompt template {path!r}: answer_schema must be a JSON object")
        label = re.sub(r"[^A-Za-z0-9_-]", "_", path[:-3])[:64]
        return {"type": "json_schema", "json_schema": {"name": label, "schema": schema}}

    def names(self) -> list[str]:
        return sorted(str(p.relative_to(self.root))[:-3] for p in self.root.rglob("*.j2"))
