"""Scripted answers for the methods that break a given program (tcgbench, tcgbench-valid,
refute, codehacker) on zoo-mini's zm01 (Commission Deadlines: n offers, each a deadline
d and a fee p, 1 <= n <= 2e5, 1 <= d, p <= 1e9) and zm04 (Ribbon Pieces).

- zm01's ``FAR`` input has a deadline far beyond n (the right answer takes both fees,
  10): the programs that index days by the deadline without clamping it to n fail on it;
- zm04's ``LONGEST`` input (one ribbon of length 5, one piece wanted: the answer is 5)
  breaks ``hi_exclusive.cpp``, whose binary search never tests the longest ribbon.

Each rule's regex is a phrase only that method's template contains.
"""

from __future__ import annotations

import json

from agent_fixtures import AUTO_PROBES, AUTO_SCENARIOS, FAR_MODE, MORE_RANDOM
from tcbench_fixtures import fenced

FAR = "2\n1000000000 7\n1 3\n"
LONGEST = "1 1\n5\n"

TCGBENCH_TARGETED = r"You find bugs in competitive-programming solutions by writing test-input generators"
TCGBENCH_VALID = r"You write test-input generators for competitive-programming problems\. A generator is"
REFUTE = r"<name>print_fail_case</name>"
CODEHACKER_PROBES = r"chosen to trip a validator up"
CODEHACKER_SCENARIOS = r"outputs meant to fool a checker"
CODEHACKER_HACK = r"You are a hacker in a programming contest"


def construct(text: str, note: str = "The bug is in the deadline handling.") -> str:
    """A TCGBench answer: a generator returning ``text``."""
    return f"{note}\n\n" + fenced(f"def construct_inputs():\n    return {text!r}\n")


RANDOM_ZM01 = fenced('''import random


def construct_inputs():
    n = random.randint(1, 6)
    rows = ["%d %d" % (random.randint(1, 10**9), random.randint(1, 10**9)) for _ in range(n)]
    return "\\n".join([str(n)] + rows) + "\\n"
''')


def refute_answer(text: str, lang: str = "Python 3") -> str:
    """A REFUTE answer in the authors' form: a program printing ``text``."""
    code = f"import sys\nsys.stdout.write({text!r})\n"
    return (f"<reason>\nDeadlines beyond n are dropped.\n</reason>\n<action>\n<name>print_fail_case</name>\n"
            f"<code>\n{code}</code>\n<lang>{lang}</lang>\n</action>")


def breaker_rules(targeted: str = FAR) -> list[tuple[str, str | list[str]]]:
    """Every breaker's templates; the targeted answers print ``targeted``."""
    return [
        (TCGBENCH_TARGETED, construct(targeted)),
        (TCGBENCH_VALID, RANDOM_ZM01),
        (REFUTE, refute_answer(targeted)),
        (CODEHACKER_PROBES, AUTO_PROBES),
        (CODEHACKER_SCENARIOS, AUTO_SCENARIOS),
        (CODEHACKER_HACK, [MORE_RANDOM, FAR_MODE]),
    ]


def rules_file(path, rules) -> str:
    with open(path, "w") as fh:
        for match, answer in rules:
            fh.write(json.dumps({"match": match, "responses" if isinstance(answer, list) else "response": answer})
                     + "\n")
    return f"scripted:{path}"
