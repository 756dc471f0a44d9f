"""A scripted model that answers every built-in method's prompts for zoo-mini's zm01
(Commission Deadlines) with usable, correct answers — so that a comparison or a
reproduction target runs end to end, every method producing tests that are scored
(WEDGE included: a validator, conditions, an instrumented reference and a mutator whose
inputs its fuzzer keeps and the efficiency runner times).

Each rule's regex is a phrase only that method's template contains (first match
answers). The answers are written for zm01: n offers, each a deadline and a fee.
"""

from __future__ import annotations

import json
from pathlib import Path

from agent_fixtures import agent_rules
from breaker_fixtures import breaker_rules
from select_fixtures import select_rules
from tcbench_fixtures import ZM01_VALIDATOR

SOLUTION = """
import heapq
import sys

def best(text):
    data = text.split()
    n = int(data[0])
    offers = sorted((int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n))
    kept = []
    for d, p in offers:
        if len(kept) < d:
            heapq.heappush(kept, p)
        elif kept[0] < p:
            heapq.heapreplace(kept, p)
    return sum(kept)

if __name__ == "__main__":
    print(best(sys.stdin.read()))
"""

TESTS = [
    ("1\n1 5\n", "5\n"),
    ("2\n1 3\n1 7\n", "7\n"),
    ("3\n1 1000000000\n2 1000000000\n3 1000000000\n", "3000000000\n"),
    ("3\n2 5\n2 5\n2 5\n", "10\n"),
    ("2\n1000000000 7\n1 3\n", "10\n"),
]

TINY_GENERATOR = """
import random

def generate():
    n = random.randint(1, 5)
    return "\\n".join([str(n)] + ["%d %d" % (random.randint(1, n), random.randint(1, 9)) for _ in range(n)]) + "\\n"
"""

RANDOM_GENERATOR = """
import random

def generate():
    n = random.randint(1, 300)
    rows = ["%d %d" % (random.randint(1, 10**9), random.randint(1, 10**9)) for _ in range(n)]
    return "\\n".join([str(n)] + rows) + "\\n"
"""

EDGE_CASES = """
def generate_edge_cases():
    return [
        "1\\n1 5\\n",
        "3\\n1 1000000000\\n2 1000000000\\n3 1000000000\\n",
        "3\\n2 5\\n2 5\\n2 5\\n",
        "2\\n1000000000 7\\n1 3\\n",
    ]
"""

VALIDATOR = ZM01_VALIDATOR

HT_ANSWER = json.dumps({
    "llmgen_inputs": ["1\n1 1\n", "2\n1 5\n1 5\n", "3\n3 4\n1 2\n2 9\n"],
    "multi_category": False,
    "programmed_generators": RANDOM_GENERATOR.replace("def generate()", "def gen_random_input()"),
    "hack_generators": ("def gen_hack_input_overflow():\n"
                        "    return \"3\\n1 1000000000\\n2 1000000000\\n3 1000000000\\n\"\n\n"
                        "def gen_hack_input_equal_fees():\n    return \"3\\n2 5\\n2 5\\n2 5\\n\"\n"),
}, indent=1)


def _efficiency_generator(n: int, reverse: bool) -> str:
    order = "range(n, 0, -1)" if reverse else "range(1, n + 1)"
    return (f"def generate() -> str:\n    n = {n}\n"
            f"    rows = ['%d %d' % (n, i) for i in {order}]\n"
            "    return str(n) + '\\n' + '\\n'.join(rows) + '\\n'\n")


def fenced(code: str, lang: str = "python") -> str:
    return f"```{lang}\n{code.strip()}\n```"


# WEDGE (prompts/wedge/): its validator raises on an invalid input instead of returning
# a bool, so it is not HT's VALIDATOR above.
WEDGE_VALIDATOR = """
def validate_input(text: str) -> None:
    lines = text.split("\\n")
    while lines and not lines[-1].strip():
        lines.pop()
    assert lines, "empty input"
    head = lines[0].split()
    assert len(head) == 1 and head[0].isdigit(), "first line: one integer n"
    n = int(head[0])
    assert 1 <= n <= 200000, "n out of range"
    assert len(lines) == n + 1, "n offer lines expected"
    for line in lines[1:]:
        parts = line.split()
        assert len(parts) == 2 and all(x.isdigit() for x in parts), "two integers per offer"
        assert 1 <= int(parts[0]) <= 10**9, "d_i out of range"
        assert 1 <= int(parts[1]) <= 10**9, "p_i out of range"
"""

WEDGE_CONDITIONS = """1. n above 10^5: the sort and the loop over the offers (lines 11-19) run over every offer.
2. More than 5*10^4 fees kept at once: deadlines spread over large values keep the heap
   big, so every push and pop (lines 15 and 18) costs log of a large size; checked in the loop."""

# The C++ reference (zm01's accepted/fast.cpp, the one the efficiency runner hands WEDGE)
# with the two conditions as checks; it prints what the reference prints.
WEDGE_INSTRUMENTED = """
#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<pair<long long, long long>> offers(n);
    for (auto &o : offers) scanf("%lld %lld", &o.first, &o.second);
    perf_condition(1, n > 100000);
    sort(offers.begin(), offers.end());
    priority_queue<long long, vector<long long>, greater<long long>> kept;
    long long total = 0;
    for (auto &o : offers) {
        kept.push(o.second);
        total += o.second;
        perf_condition(2, (long long)kept.size() > 50000);
        if ((long long)kept.size() > o.first) {
            total -= kept.top();
            kept.pop();
        }
    }
    printf("%lld\\n", total);
    return 0;
}
"""

# Offers with five-digit deadlines and two-digit fees: n just above 10^5 stays under the
# 1 MB an input may have (the fuzzer drops larger ones).
WEDGE_MUTATOR = """
import random


def _fresh() -> str:
    n = random.randint(100001, 104000)
    rows = ["%d %d" % (random.randint(1, 99999), random.randint(1, 99)) for _ in range(n)]
    return str(n) + "\\n" + "\\n".join(rows) + "\\n"


def mutate_input(text: str) -> str:
    try:
        lines = text.split()
        n = int(lines[0])
        rows = [(int(lines[1 + 2 * i]), int(lines[2 + 2 * i])) for i in range(n)]
    except (ValueError, IndexError):
        return _fresh()
    if n < 100000 or random.random() < 0.3:
        return _fresh()
    kind = random.choice(["shuffle", "spread", "grow"])
    if kind == "shuffle":
        random.shuffle(rows)
    elif kind == "spread":
        rows = [(random.randint(d, 99999), p) for d, p in rows]
    elif len(rows) < 104000:
        rows += [(random.randint(1, 99999), random.randint(1, 99)) for _ in range(104000 - len(rows))]
    return str(len(rows)) + "\\n" + "\\n".join("%d %d" % r for r in rows) + "\\n"
"""

WEDGE_RULES: list[tuple[str, str | list[str]]] = [
    (r"def mutate_input\(text: str\) -> str", fenced(WEDGE_MUTATOR)),
    (r"perf_condition\(ID, CONDITION\)", fenced(WEDGE_INSTRUMENTED, "cpp")),
    (r"def validate_input\(text: str\) -> None", fenced(WEDGE_VALIDATOR)),
    (r"between 2 and 5 performance-characterising conditions", WEDGE_CONDITIONS),
]



def harness_answer() -> str:
    inputs = [t[0] for t in TESTS]
    code = (SOLUTION.replace('if __name__ == "__main__":\n    print(best(sys.stdin.read()))\n', "")
            + "\n\ndef generate_input_1():\n    return " + repr(inputs[:3]) + "\n"
            + "\n\ndef generate_input_2():\n    return " + repr(inputs[3:]) + "\n"
            + "\n\ndef check_output(generated_input, captured_output):\n"
            + "    assert int(captured_output.strip()) == best(generated_input)\n")
    return "The greedy may forget a richer late offer.\n\n" + fenced(code)


def _inputs(*texts: str) -> str:
    return "Here are the inputs.\n\n" + "".join(f"```input\n{t}\n```\n\n" for t in texts)


# TRAILS, zero-shot CoT and HoarePrompt: the phrases only their templates say. TRAILS
# judges every (input, output) pair correct, CoT says correct, HoarePrompt incorrect.
VERIFIER_RULES: list[tuple[str, str | list[str]]] = [
    (r"category-partition", "```json\n" + json.dumps(
        [{"name": n, "preconditions": f"{n} offers", "behaviour": "as specified"} for n in ("single", "many")])
     + "\n```"),
    (r"describe what is needed to run", "It reads standard input.\nProperties: first line n, then n lines `d p`."),
    (r"Inputs that failed", _inputs("1\n1 5")),
    (r"belong to this scenario", _inputs("1\n1 5", "2\n1 3\n1 7")),
    (r"Output produced", "The printed total is the best one.\nVerdict: CORRECT"),
    (r"## The program, annotated", "The greedy keeps the richest offers.\nCorrectness: False"),
    (r"Write the precondition", "Precondition: n offers, each with a deadline and a fee."),
    (r"State after the branch taken when the condition holds", "Output State: **merged**"),
    (r"\nLoop:\n", "Output State: **after the loop**"),
    (r"\nCode:\n", "Output State: **updated**"),
    (r"## The program\n", "Step by step, the program keeps the best fees.\nCorrectness: True"),
]


# HardTestGen (prompts/hardtestgen/): the checks answer (validator, no judge) and the
# inputs answer (LLMGen, RPGen, HackGen), each an analysis then JSON.
HTG_CHECKS = "# Analysis\nn, d_i, p_i ranges; no judge.\n\n# Result\n" + fenced(json.dumps(
    {"input_validator": VALIDATOR, "needs_output_judge": False, "output_judge": None}, indent=1), "json")
HTG_INPUTS = "# Analysis\nA greedy by deadline fails.\n\n# Result\n" + fenced(json.dumps({
    "llmgen_inputs": ["1\n1 1\n", "2\n1 5\n1 5\n", "3\n3 4\n1 2\n2 9\n"],
    "multi_category": False,
    "programmed_generator": RANDOM_GENERATOR.replace("def generate()", "def gen_range_based_input()"),
    "hacking_generator": ("def gen_hacking_input_overflow():\n"
                          "    return \"3\\n1 1000000000\\n2 1000000000\\n3 1000000000\\n\"\n\n"
                          "def gen_hacking_input_equal_fees():\n    return \"3\\n2 5\\n2 5\\n2 5\\n\"\n"),
}, indent=1), "json")

# SAGA (prompts/saga/): one module per analysis, a validator and gen_case functions.
SAGA_MODULE = VALIDATOR + '''

def gen_case_1():
    """One offer."""
    return "1\\n1 5\\n"


def gen_case_2():
    """Equal fees."""
    return "3\\n2 5\\n2 5\\n2 5\\n"


def gen_case_3():
    """A total beyond 32 bits."""
    return "3\\n1 1000000000\\n2 1000000000\\n3 1000000000\\n"
'''
SAGA_DIFFERENTIAL = SAGA_MODULE + '''

def gen_case_4():
    """A deadline far beyond n."""
    return "2\\n1000000000 7\\n1 3\\n"
'''

HTG_SAGA_RULES: list[tuple[str, str | list[str]]] = [
    (r"Part 1: the input validator", HTG_CHECKS),
    (r"Written inputs \(LLMGen\)", HTG_INPUTS),
    (r"Analyse the solution along three dimensions", "# Analysis\nPhase 1 ...\n\n# Tests\n" + fenced(SAGA_MODULE)),
    (r"Compare the two along three dimensions", "# Analysis\nPhase 1 ...\n\n# Tests\n" + fenced(SAGA_DIFFERENTIAL)),
]

# Function-level methods on the HumanEval fixture's Mini/0 (span): CodeT's solutions (two
# right, two wrong) and asserts, EvalPlus's seed inputs, LiveCodeBench's predictions.
SPAN_RULES = [
    # CodeT's own prompts (codet prompts: completion): the stub, continued; the tests
    # prompt, continued after its "assert"
    (r"# check the correctness of span\nassert", " span([1.0, 4.0]) == 3.0\nassert span([]) == 0.0\n"
                                                "assert span([5.0, 1.0]) == 5.0\n# done\n"),
    (r"^user: from typing import List\s+def span\(", [
        "    return max(values) - min(values) if values else 0.0\n",
        "    s = sorted(values)\n    return s[-1] - s[0] if s else 0.0\n\n\nprint(span([]))\n",
        "    return max(values) - min(values)\n",
        "    return max(values)\n"]),
    (r"Complete the Python function `span`", [
        fenced("def span(values):\n    return max(values) - min(values) if values else 0.0\n"),
        fenced("def span(values):\n    s = sorted(values)\n    return s[-1] - s[0] if s else 0.0\n"),
        fenced("def span(values):\n    return max(values) - min(values)\n"),
        fenced("def span(values):\n    return max(values)\n")]),
    (r"correctness of `span`", fenced("assert span([1.0, 4.0]) == 3.0\nassert span([]) == 0.0\n"
                                      "assert span([5.0, 1.0]) == 5.0\n")),
    (r"function under test, `span`", "```\n[3.0, 1.0, 2.0, 0.5]\n[]\n[-1.5]\n```"),
    (r"assert span\(\[\[?1\.0, 4\.0, 2\.5\]\]?\) == # TODO", "assert span([1.0, 4.0, 2.5]) == 3.0"),
    (r"== # TODO", "assert span(x) == 0.0"),
]


def zm01_rules() -> list[tuple[str, str | list[str]]]:
    """(regex, answer) for every built-in method's templates, most specific first."""
    stab_batch = "\n\n".join(fenced(_efficiency_generator(20000, reverse=i % 2 == 1)) for i in range(5))
    return [
        *breaker_rules(),  # tcgbench, refute, codehacker's own templates: breaker_fixtures
        *select_rules(),  # utgen, utdebug, sstar, coderm on the HumanEval fixture's span: select_fixtures
        *agent_rules(),  # the generator-validator agents (ccplus, cco, autocode): agent_fixtures
        *HTG_SAGA_RULES,  # before HT's validator rule: their prompts name validate_input too
        *SPAN_RULES,
        *VERIFIER_RULES,
        *WEDGE_RULES,
        (r"(?s)Your previous generator failed.*perf_input_gen", fenced(
            "def perf_input_gen(scale: int) -> str:\n    n = 500 * scale\n"
            "    return f\"{n}\\n\" + \"\".join(f\"{n - i} {i + 1}\\n\" for i in range(n))\n")),
        (r"perf_input_gen", fenced(
            "def perf_input_gen(scale: int) -> str:\n    n = 500 * scale\n"
            "    return f\"{n}\\n\" + \"\".join(f\"{n - i} {i + 1}\\n\" for i in range(n))\n")),
        (r"Your previous generator failed", fenced(_efficiency_generator(20000, reverse=False))),
        (r"Write \d+ different generators", stab_batch),
        (r"Write generator \d+ of \d+", fenced(_efficiency_generator(20000, reverse=True))),
        (r"Write a \*\*test harness\*\*", harness_answer()),
        (r"Write \*\*test cases\*\* that uncover bugs", "```json\n" + json.dumps(
            [{"input_str": i, "expected_output": o} for i, o in TESTS]) + "\n```"),
        (r"validate_input\(input_str: str\) -> bool", fenced(VALIDATOR)),
        (r"Produce four kinds of inputs", fenced(HT_ANSWER, "json")),
        (r"generate_edge_cases", fenced(EDGE_CASES)),
        (r"different calls exercise different scales", fenced(RANDOM_GENERATOR)),
        (r"brute-force program for this problem", fenced(SOLUTION)),
        (r"exhaustive search over the input finishes instantly", fenced(TINY_GENERATOR)),
        (r"Write \d+ test inputs for this problem", json.dumps([t[0] for t in TESTS])),
        (r"Solve this problem\. Give one complete program", fenced(SOLUTION)),
        (r"Write \d+ test cases for this problem", "```json\n" + json.dumps(
            [{"input": i, "output": o} for i, o in TESTS]) + "\n```"),
    ]


def write_rules(path: Path, rules: list[tuple] | None = None) -> str:
    """Write a scripted model file of (match, answer) rules, or (match, answer, delay
    in seconds); return its model string."""
    with Path(path).open("w") as fh:
        for match, answer, *delay in (zm01_rules() if rules is None else rules):
            key = "responses" if isinstance(answer, list) else "response"
            fh.write(json.dumps({"match": match, key: answer, **({"delay": delay[0]} if delay else {})}) + "\n")
    return f"scripted:{path}"
