"""Jinja prompt templates: ``<method>/<step>.j2``, found in several folders.

The built-in templates are ``tczoo.prompts`` (the repository's ``prompts/``). A plugin
package brings its own folder by naming a package (a directory of templates) in the
``tczoo.prompts`` entry-point group::

    [project.entry-points."tczoo.prompts"]
    edge = "mypkg.prompts"          # mypkg/prompts/edge/generate.j2 -> "edge/generate"

All folders are searched together (built-ins first), so a plugin's template can
``{% include "_shared/problem.j2" %}``; a plugin template whose name is already taken
by a built-in (or an earlier plugin) is never used: ``shadowed()`` lists them, a
warning names them when the folders are loaded, and ``tczoo doctor`` shows them. Two
packages that register the same folder name are an error naming both
(``tczoo.registry``).

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

import importlib.util
import json
import logging
import re
from pathlib import Path
from typing import Any

import jinja2

from tczoo.paths import data_root
from tczoo.errors import UserError

GROUP = "tczoo.prompts"
log = logging.getLogger("tczoo.templates")
_WARNED: set[tuple[str, str]] = set()  # each shadowed template is named once per process


class PromptError(UserError, ValueError):
    pass


def plugin_roots() -> list[tuple[str, Path]]:
    """(entry-point name, folder) of every installed plugin's template folder, in name
    order. A folder that cannot be found is a clear error naming its entry point."""
    from tczoo.registry import plugin_entry_points

    roots = []
    for ep in plugin_entry_points(GROUP):
        spec = importlib.util.find_spec(ep.value)
        if spec is None or not spec.submodule_search_locations:
            raise PromptError(f"prompt folder {ep.value!r} of plugin {ep.name!r} ({GROUP} entry point) "
                              "is not an importable package")
        roots.append((ep.name, Path(list(spec.submodule_search_locations)[0])))
    return roots


class Prompts:
    def __init__(self, root: Path | None = None, *, plugins: bool = True, warn_shadowed: bool = True):
        """``root``: the built-in folder (default ``tczoo.prompts``); ``plugins``: also
        search every ``tczoo.prompts`` entry point's folder; ``warn_shadowed``: log one
        warning per plugin template that is never used (``shadowed()``)."""
        self.root = Path(root) if root else data_root("prompts")
        self.roots = [self.root] + ([p for _, p in plugin_roots()] if plugins else [])
        if warn_shadowed and len(self.roots) > 1:
            for name, path in self.shadowed():
                if (name, str(path)) not in _WARNED:
                    _WARNED.add((name, str(path)))
                    log.warning(shadow_line(name, path))
        self.env = jinja2.Environment(
            loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(r)) for r in self.roots]),
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
            autoescape=False,
        )

    def render(self, name: str, **variables: Any) -> list[dict[str, str]]:
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
            where = ", ".join(str(r) for r in self.roots)
            raise PromptError(f"prompt template {exc.name or path!r} not found (searched {where}); a plugin "
                              f"registers its template folder in the {GROUP!r} entry-point group") from exc
        except jinja2.UndefinedError as exc:
            raise PromptError(f"prompt template {path!r}: {exc}") from exc
        except jinja2.TemplateSyntaxError as exc:
            raise PromptError(f"prompt template {exc.filename or path}:{exc.lineno}: {exc.message}") from exc
        if not messages:
            raise PromptError(f"prompt template {path!r} defines no system or user block")
        return messages

    def response_format(self, name: str, **variables: Any) -> dict[str, Any] | None:
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
            raise PromptError(f"prompt template {exc.name or path!r} not found") from exc
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
        """Every template name, once (the one ``render`` would use)."""
        seen: dict[str, Path] = {}
        for root in self.roots:
            for p in root.rglob("*.j2"):
                seen.setdefault(p.relative_to(root).with_suffix("").as_posix(), root)
        return sorted(seen)

    def shadowed(self) -> list[tuple[str, Path]]:
        """Templates of a later folder hidden by an earlier one with the same name (a
        plugin's template named like a built-in one): (name, the hidden file)."""
        seen: set[str] = set()
        hidden = []
        for root in self.roots:
            for p in sorted(root.rglob("*.j2")):
                name = p.relative_to(root).with_suffix("").as_posix()
                if name in seen:
                    hidden.append((name, p))
                seen.add(name)
        return hidden


def shadow_line(name: str, path: Path) -> str:
    """The one line that reports a hidden plugin template."""
    return (f"the plugin template {path} is never used: a template named {name!r} comes first (a built-in or an "
            f"earlier plugin folder); give it a name of its own")
