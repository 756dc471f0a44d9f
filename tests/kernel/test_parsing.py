import pytest

from tczoo.parsing import ParseError, as_stdin, code_blocks, extract_code, looks_like_solution, parse_json, python_defines


def test_fenced_python_preferred_over_other_languages():
    text = "Here:\n```cpp\nint main(){}\n```\nand\n```python\ndef generate():\n    return '1'\n```\n"
    assert extract_code(text, "python", require=("def generate",)).startswith("def generate")


def test_unfenced_python_answer_is_accepted():
    assert "def generate" in extract_code("def generate():\n    return '5\\n'\n", "python")


def test_truncated_block_keeps_complete_prefix():
    text = "```python\ndef a():\n    return 1\n\ndef b():\n    return [1, 2,"
    code = extract_code(text, "python", require=("def a",))
    assert python_defines(code) == {"a"}


def test_missing_definition_reason():
    with pytest.raises(ParseError) as err:
        extract_code("```python\nx = 1\n```", "python", require=("def check_output",))
    assert err.value.reason == "missing_definition"


def test_no_code_block_reason():
    with pytest.raises(ParseError) as err:
        extract_code("I cannot help with that.", "cpp")
    assert err.value.reason == "no_code_block"


def test_definitions_split_over_blocks_are_joined():
    text = "```python\ndef generate_input_1():\n    return ['1']\n```\ntext\n```python\ndef check_output(i, o):\n    assert o\n```"
    code = extract_code(text, "python", require=("def generate_input_1", "def check_output"))
    assert python_defines(code) == {"generate_input_1", "check_output"}


@pytest.mark.parametrize(
    "text,expected",
    [
        ('[{"input": "1\\n", "output": "2\\n"}]', [{"input": "1\n", "output": "2\n"}]),
        ('Sure!\n```json\n[\n  {"input": "1", "output": "2"}, // small\n]\n```', [{"input": "1", "output": "2"}]),
        ("[{'input': '3', 'output': None}]", [{"input": "3", "output": None}]),
        ('[{"input": "1"}, {"input": "2"}, {"input": "3", "outp', [{"input": "1"}, {"input": "2"}]),
        ('/* tests */ {"tests": [1, 2,],}', {"tests": [1, 2]}),
    ],
)
def test_lenient_json(text, expected):
    assert parse_json(text) == expected


def test_json_with_hash_inside_strings_survives():
    assert parse_json('[{"input": "#..#\\n"}]') == [{"input": "#..#\n"}]


def test_unparseable_json_reason():
    with pytest.raises(ParseError) as err:
        parse_json("no json here at all")
    assert err.value.reason == "bad_json"


@pytest.mark.parametrize(
    "value,stdin",
    [
        ("3\n1 2 3", "3\n1 2 3\n"),
        ("3\\n1 2 3", "3\n1 2 3\n"),
        ({"n": 3, "a": [1, 2, 3]}, "3\n1 2 3\n"),
        ([2, [1, 2], [3, 4]], "2\n1 2\n3 4\n"),
        ([[1, 2], [3, 4]], "1 2\n3 4\n"),
        (7, "7\n"),
    ],
)
def test_inputs_given_as_objects_become_stdin(value, stdin):
    assert as_stdin(value) == stdin


def test_solution_instead_of_tests_is_recognised():
    assert looks_like_solution("#include <bits/stdc++.h>\nint main() { int n; std::cin >> n; }")
    assert looks_like_solution("import sys\nn = int(sys.stdin.readline())")
    assert not looks_like_solution('[{"input": "1", "output": "1"}]')


def test_code_blocks_mark_unclosed():
    blocks = code_blocks("```python\nprint(1)\n```\n```cpp\nint x")
    assert [b.closed for b in blocks] == [True, False]


def test_code_with_lone_surrogates_or_nul_is_unparsable_not_a_crash():
    from tczoo.parsing import ParseError, extract_program, python_defines

    for text in ("def f():\n    return '\udcff'\n", "def f():\n    return 1\x00\n"):
        assert python_defines(text) == set()
        try:
            extract_program(f"```\n{text}```")
        except ParseError:
            pass
