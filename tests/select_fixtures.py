"""Scripted answers for issue 50's methods (utgen, utdebug, sstar, coderm) on the
HumanEval fixture's Mini/0 (``span(values)``: the largest value minus the smallest, 0.0
for an empty list; its public tests: span([1.0, 4.0, 2.5]) is 3.0, span([]) is 0.0),
and a candidates file whose wrong candidate returns 1.0 for an empty list.

Each rule's regex is a phrase only that method's template contains.
"""

from __future__ import annotations

from pathlib import Path

from tcbench_fixtures import fenced

CANDIDATES = Path(__file__).parent / "fixtures" / "humaneval" / "mini-candidates.jsonl"

CORRECT = "def span(values):\n    if not values:\n        return 0.0\n    return max(values) - min(values)\n"
PAIRS_WRONG = ("def span(values):\n    if len(values) == 2:\n        return 0.0\n"
               "    return max(values) - min(values) if values else 0.0\n")  # passes the public tests only
CRASHES = "def span(values):\n    return max(values) - min(values)\n"  # fails the public span([])
SORTED = "def span(values):\n    s = sorted(values)\n    return s[-1] - s[0] if s else 0.0\n"

UNITTEST = ("import unittest\n\nclass TestSpan(unittest.TestCase):\n    def test_pair(self):\n"
            "        self.assertEqual(span([1.0, 4.0]), 3.0)\n    def test_empty(self):\n"
            "        self.assertEqual(span([]), 0.0)\n")
UNITTEST_EQUAL = ("import unittest\n\nclass TestEqual(unittest.TestCase):\n    def test_equal(self):\n"
                  "        self.assertEqual(span([2.0, 2.0]), 0.0)\n")


def select_rules() -> list[tuple[str, str | list[str]]]:
    return [
        # UTGen's unit tests, UTDebug's output votes and repairs
        (r"known to be incorrect", ["An empty list is mishandled.\nArguments: ```span([])```\nOutput: ```0.0```",
                                    "Arguments: ```span([1.0, 4.0])```\nOutput: ```3.0```"]),
        (r"called as:\s*```python\s*span\(\[\]\)", "Output: ```0.0```"),
        (r"called as:", "Output: ```3.0```"),
        (r"does not pass the following unit test", fenced(CORRECT)),
        # S*
        (r"It fails this public test", fenced(CRASHES)),
        (r"Write a set of test \*\*inputs\*\*", "```json\n[[[1.0, 5.0]], [[2.0]]]\n```"),
        (r"These two solutions do not always agree", "```json\n[[[5.0, 1.0]]]\n```"),
        (r"Solution A: `4\.0`", "Answer: A"),
        (r"Solution A: `0\.0`", "Answer: B"),
        (r"Write a correct and efficient implementation", [fenced(CORRECT), fenced(PAIRS_WRONG), fenced(CRASHES),
                                                           fenced(SORTED)]),
        # CodeRM
        (r"Solve the following problem with a self-contained", [fenced(CORRECT), fenced(CRASHES),
                                                                 fenced("def span(values):\n    return max(values)\n")]),
        (r"### code answer", [fenced(UNITTEST), fenced(UNITTEST_EQUAL)]),
    ]
