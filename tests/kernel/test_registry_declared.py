"""``tczoo methods`` reads each method's declaration from its source (tczoo.registry's
``declared_method``) instead of importing it: what it reads must be what the imported
class says, and where it cannot be sure it must give up (the class is imported then)."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from tczoo import registry


def test_every_installed_method_reads_as_its_class_describes_itself():
    eps = registry._group("tczoo.methods")
    unread = []
    for name in registry.method_names():
        declared = registry.declared_method(eps[name].value)
        if declared is None:
            unread.append(name)
            continue
        real = registry.get_method(name).describe()
        assert json.dumps(declared) == json.dumps(real), name  # the same values, keys in the same order
    assert unread == []  # every built-in is listed without importing it


def test_describe_shows_a_default_factory_s_value():
    """CodeT's stop words come from a default_factory: the listing shows the list, not
    pydantic's 'undefined' marker."""
    params = registry.get_method("codet").describe()["params"]
    assert isinstance(params["stop_words"], list) and params["stop_words"]


BASE = '''
from pydantic import Field

from tczoo.method import Method, MethodParams
from tczoo.schema import OracleKind, Setting

LIMIT = 32 * 1024


class ToyParams(MethodParams):
    rounds: int = Field(3, ge=1, description="rounds")
    size: int = LIMIT
    names: list[str] = Field(default_factory=list)


class Toy(Method):
    name = "toy"
    paper = "a test"
    summary = "reads as declared"
    setting = Setting.SPEC_CORRECT
    produces = OracleKind.INPUTS_ONLY
    runner = "efficiency"
    Params = ToyParams

    async def generate(self, task, ctx):
        return ctx.new_suite(task)
'''

TRAPS = {
    "decorated": "def keep(c):\n    return c\n\n\n@keep\nclass Trap(Toy):\n    name = 'trap'\n",
    "late attribute": "class Trap(Toy):\n    async def generate(self, task, ctx):\n        return None\n\n"
                      "    name = 'late'\n",
    "computed": "class Trap(Toy):\n    name = 'trap-' + 'x'.upper()\n",
    "own describe": "class Trap(Toy):\n    name = 'trap'\n\n    @classmethod\n    def describe(cls):\n"
                    "        return {}\n",
    "set afterwards": "class Trap(Toy):\n    name = 'trap'\n\n\nTrap.summary = 'changed'\n",
    "two bases": "class Mixin:\n    pass\n\n\nclass Trap(Toy, Mixin):\n    name = 'trap'\n",
    "required field": "class TrapParams(ToyParams):\n    must: int\n\n\nclass Trap(Toy):\n    name = 'trap'\n"
                      "    Params = TrapParams\n",
    "params a constant": "PARAMS = 3\n\n\nclass Trap(Toy):\n    name = 'trap'\n    Params = PARAMS\n",
    "base a constant": "Base = 3\n\n\nclass Trap(Base):\n    name = 'trap'\n",
}


@pytest.fixture
def package(tmp_path, monkeypatch):
    root = tmp_path / "toypkg"
    root.mkdir()
    (root / "__init__.py").write_text("raise ImportError('the reader never runs a package')\n")
    (root / "base.py").write_text(textwrap.dedent(BASE))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield root
    for name in [m for m in sys.modules if m.startswith("toypkg")]:
        del sys.modules[name]


def test_a_plain_declaration_is_read_without_running_the_package(package):
    info = registry.declared_method("toypkg.base:Toy")
    assert info == {"name": "toy", "paper": "a test", "summary": "reads as declared", "setting": "spec+correct",
                    "produces": "inputs_only", "runner": "efficiency", "first_k": None, "functional": False,
                    "stdin": True, "samples_candidates": False,
                    "params": {"temperature": None, "top_p": None, "presence_penalty": None, "max_tokens": None,
                               "rounds": 3, "size": 32768, "names": []}}
    assert "toypkg" not in sys.modules  # neither the package nor the module ran


@pytest.mark.parametrize("trap", sorted(TRAPS))
def test_what_the_reader_cannot_be_sure_of_is_left_to_the_import(package, trap):
    (package / "trap.py").write_text("from toypkg.base import Toy, ToyParams  # noqa: F401\n\n\n" + TRAPS[trap])
    registry._TEXTS.pop("toypkg.trap", None)
    registry._IMPORTS.pop("toypkg.trap", None)
    assert registry.declared_method("toypkg.trap:Trap") is None


def test_the_table_s_listing_leaves_the_parameters_out_and_agrees_otherwise():
    full = registry.describe_methods()
    short = registry.describe_methods(params=False)
    assert short == [{k: v for k, v in info.items() if k != "params"} for info in full]
