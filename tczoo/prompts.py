"""Jinja prompt templates: ``prompts/<method>/<step>.j2``.

A template defines ``{% block system %}`` and ``{% block user %}`` (either may be absent);
``render`` returns the chat messages. ``StrictUndefined`` turns a missing variable into
an error instead of a silently empty prompt. No prompt text lives in Python files.
"""

from __future__ import annotations

from pathlib import Path

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

    def names(self) -> list[str]:
        return sorted(str(p.relative_to(self.root))[:-3] for p in self.root.rglob("*.j2"))
