import pytest

from tczoo.templates import PromptError, Prompts
from tczoo.schema import Sample, Setting, Task


def test_render_has_system_and_user_and_problem(tmp_path):
    task = Task(problem_id="p", title="T", statement="Add two numbers.", time_limit_ms=1000,
                memory_limit_mb=256, samples=[Sample(input="1 2\n", output="3\n")], setting=Setting.SPEC)
    msgs = Prompts().render("crux/generate", task=task, n_tests=5)
    assert [m["role"] for m in msgs] == ["system", "user"]
    assert "Add two numbers." in msgs[1]["content"] and "5 test cases" in msgs[1]["content"]
    assert "1 2" in msgs[1]["content"]  # samples not in the statement are shown


def test_missing_variable_is_an_error_not_an_empty_prompt():
    with pytest.raises(PromptError, match="undefined"):
        Prompts().render("crux/generate", n_tests=5)


def test_unknown_template_is_a_clear_error():
    with pytest.raises(PromptError, match="not found"):
        Prompts().render("nope/never")


def test_every_template_parses():
    prompts = Prompts()
    for name in prompts.names():
        prompts.env.get_template(name + ".j2")  # syntax errors surface here


def test_no_prompt_text_in_python_files():
    """Prompts live in prompts/: no .py file under methods/ or runners/ renders inline text."""
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[2]
    for py in list((root / "methods").rglob("*.py")) + list((root / "runners").rglob("*.py")):
        text = py.read_text()
        assert '"role": "user"' not in text and "'role': 'user'" not in text, py


def test_answer_schema_block_becomes_a_response_format():
    task = Task(problem_id="p", title="T", statement="Add two numbers.", time_limit_ms=1000,
                memory_limit_mb=256, samples=[], setting=Setting.SPEC)
    fmt = Prompts().response_format("crux/generate", task=task, n_tests=7)
    assert fmt["type"] == "json_schema"
    schema = fmt["json_schema"]["schema"]
    assert schema["type"] == "array" and schema["maxItems"] == 7  # follows the prompt's variables
    assert set(schema["items"]["required"]) == {"input", "output"}


def test_templates_without_answer_schema_have_no_response_format():
    assert Prompts().response_format("harness/solve", task=None, language_name="Python 3") is None


def test_every_answer_schema_is_json_and_compiles_to_a_grammar():
    """A broken schema block would fail every call on the embedded model; catch it here."""
    import importlib.util
    import re

    prompts = Prompts()
    for name in prompts.names():
        source = (prompts.root / f"{name}.j2").read_text()
        if "block answer_schema" not in source:
            continue
        block = re.search(r"{% block answer_schema %}(.*?){% endblock %}", source, re.S).group(1)
        rendered = prompts.env.from_string(block).render(n_tests=3, max_tests=3, n_llmgen=3)
        schema = __import__("json").loads(rendered)
        assert isinstance(schema, dict), name
        if importlib.util.find_spec("llama_cpp") is not None:
            from tczoo.llm.local.sampling import grammar_for

            assert grammar_for({"type": "json_schema", "json_schema": {"schema": schema}}).startswith("answer ::=")
