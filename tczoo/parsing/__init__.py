"""Getting code and data out of LLM answers (``text``), and answers into test cases
and programs (``answers``). Every function salvages what it can and says what went
wrong through ``ParseError.reason`` or a failure recorded on the suite."""

from tczoo.parsing.answers import (
    bare_python,
    code_cut_off,
    code_in_json,
    contest_language,
    extract_function,
    extract_program,
    function_from,
    json_cut_off,
    note_truncation,
    solution_not_tests,
    tests_from_json_answer,
    tests_from_value,
)
from tczoo.parsing.text import (
    EMPTY_RESPONSE,
    LANG_ALIASES,
    CodeBlock,
    ParseError,
    as_stdin,
    code_blocks,
    extract_code,
    looks_like_solution,
    parse_json,
    python_defines,
)

__all__ = [
    "EMPTY_RESPONSE", "LANG_ALIASES", "CodeBlock", "ParseError", "as_stdin", "bare_python", "code_blocks", "code_cut_off",
    "code_in_json", "contest_language", "extract_code", "extract_function", "extract_program", "function_from", "json_cut_off",
    "looks_like_solution", "note_truncation", "parse_json", "python_defines", "solution_not_tests",
    "tests_from_json_answer", "tests_from_value",
]
