"""Scripted answers for the generator–validator agents (ccplus, cco, autocode) on
zoo-mini's zm01 (Commission Deadlines: n offers, each a deadline d and a fee p, 1 <=
n <= 2e5, 1 <= d, p <= 1e9), written so that each agent goes through revision rounds:

- a validator that wrongly demands distinct fees (it rejects sample 2, whose fees 4 and
  4 repeat), then the right one;
- a generator whose ``zero`` mode makes a fee of 0 (the validator rejects it) and whose
  ``boom`` mode crashes, then a search/replace edit and a command list that fix both;
- for CodeContests-O, two feedback revisions: a ``far`` mode (deadlines beyond n, which
  sweep_no_clamp drops) and then more random commands;
- for AutoCode, probes, three validator candidates of different accuracy, a generator
  in three buckets whose ``tle`` command crashes at first, scenarios and three checker
  candidates.

Each rule's regex is a phrase only that template contains; ``responses`` lists answer
the n-th ask of a template (the loop asks template T's k-th time with sample k).
"""

from __future__ import annotations

import json

from tcbench_fixtures import fenced

STRICT_VALIDATOR = '''
def validate_input(input_str):
    lines = input_str.strip().split("\\n")
    n = int(lines[0])
    if not 1 <= n <= 200000 or len(lines) != n + 1:
        return (False, "expected n offer lines")
    fees = [int(line.split()[1]) for line in lines[1:]]
    if len(set(fees)) != n:
        return (False, "fees are not distinct")
    return True
'''

VALIDATOR = '''
def validate_input(input_str):
    lines = input_str.strip().split("\\n")
    if not lines[0].strip().isdigit():
        return (False, "n is not an integer")
    n = int(lines[0])
    if not 1 <= n <= 200000:
        return (False, "n = %d out of range" % n)
    if len(lines) != n + 1:
        return (False, "expected %d offer lines, got %d" % (n, len(lines) - 1))
    for k, line in enumerate(lines[1:], 2):
        parts = line.split()
        if len(parts) != 2 or not all(x.isdigit() for x in parts):
            return (False, "line %d: two integers expected" % k)
        d, p = map(int, parts)
        if not 1 <= d <= 10**9:
            return (False, "line %d: deadline %d out of range" % (k, d))
        if not 1 <= p <= 10**9:
            return (False, "line %d: fee %d out of range" % (k, p))
    return True
'''

# Misses the fee's upper bound: accepts "1\n1 1000000001".
LOOSE_VALIDATOR = VALIDATOR.replace("if not 1 <= p <= 10**9:", "if not 1 <= p:")
ACCEPT_ALL_VALIDATOR = "def validate_input(input_str):\n    return True\n"

GENERATOR = '''import random


def generate(args):
    n = args.get("n", 5)
    mode = args.get("mode", "random")
    if mode == "boom":
        raise ValueError("unknown mode")
    rows = []
    for i in range(n):
        if mode == "min":
            d, p = 1, 1
        elif mode == "overflow":
            d, p = i + 1, 10**9
        elif mode == "zero":
            d, p = 1, 0
        elif mode == "equal":
            d, p = 2, 5
        else:
            d, p = random.randint(1, n), random.randint(1, 20)
        rows.append("%d %d" % (d, p))
    return "\\n".join([str(n)] + rows) + "\\n"
'''
FIXED_GENERATOR = GENERATOR.replace("            d, p = 1, 0\n", "            d, p = 1, 1\n")

COMMANDS = ["n=1 mode=min", "n=6 mode=random seed=1", "n=6 mode=random seed=2", "n=3 mode=zero", "n=2 mode=boom",
            "n=3 mode=overflow"]

ZERO_EDIT = """<<<<<<< SEARCH
            d, p = 1, 0
=======
            d, p = 1, 1
>>>>>>> REPLACE"""

# The deadline-beyond-n mode (CodeContests-O's first feedback revision).
FAR_EDIT = """<<<<<<< SEARCH
        elif mode == "equal":
=======
        elif mode == "far":
            d, p = (10**9, 7) if i == 0 else (1, 3)
        elif mode == "equal":
>>>>>>> REPLACE"""


def commands_block(lines: list[str], label: str = "commands") -> str:
    return fenced("\n".join(lines), label)


def generator_answer(code: str = GENERATOR, commands: list[str] = COMMANDS) -> str:
    return "A generator with modes.\n\n" + fenced(code) + "\n\n" + commands_block(commands)


GENERATOR_REVISION = ("The zero mode makes fee 0 and boom crashes.\n\n" + fenced(ZERO_EDIT, "") + "\n\n"
                      + commands_block(["n=2 mode=boom"], "remove") + "\n\n" + commands_block(["n=4 mode=equal"]))
FAR_MODE = ("sweep drops deadlines beyond n.\n\n" + fenced(FAR_EDIT, "") + "\n\n" + commands_block(["n=2 mode=far"]))
MORE_RANDOM = ("More random tests.\n\n" + commands_block(["n=1 mode=min"], "remove") + "\n\n"
              + commands_block(["n=8 mode=random seed=5", "n=8 mode=random seed=6"]))

CHECK_ACCEPT_ALL = "def check_output(input_str, output_str, expected_str):\n    pass\n"
CHECK_TOKENS = ('def check_output(input_str, output_str, expected_str):\n'
                '    got = output_str.split()\n'
                '    assert len(got) == 1 and got[0].isdigit(), "one integer expected"\n'
                '    assert got == expected_str.split(), "total %s, expected %s" % (got[0], expected_str.strip())\n')
CHECK_CRASH = "def check_output(input_str, output_str, expected_str):\n    return int(output_str) // 0\n"

# --------------------------------------------------------------------------- rules

CCPLUS_VALIDATOR = r"You are the validator agent of a team"
CCPLUS_VALIDATOR_REVISE = r"## Your current validator"
CCPLUS_GENERATOR = r"Write one generator program for this problem and (\d+ commands|as many\s+commands)"
CCPLUS_GENERATOR_REVISE = r"Fix them, keeping the tests that were right"
CCPLUS_CHECKER_REVISE = r"## Your current checker"
CCO_FEEDBACK = r"Your tests were run on known correct and known wrong"


def ccplus_rules() -> list[tuple[str, str | list[str]]]:
    """ccplus (and cco's first stages): two validator rounds, two generator rounds,
    and, with checker "always", two checker rounds."""
    return [
        (CCO_FEEDBACK, [MORE_RANDOM, FAR_MODE]),
        (CCPLUS_VALIDATOR_REVISE, fenced(VALIDATOR)),
        (CCPLUS_GENERATOR_REVISE, GENERATOR_REVISION),
        (CCPLUS_CHECKER_REVISE, fenced(CHECK_TOKENS)),
        (r"output checkers for competitive-programming problems that accept several", fenced(CHECK_ACCEPT_ALL)),
        (CCPLUS_VALIDATOR, fenced(STRICT_VALIDATOR)),
        (CCPLUS_GENERATOR, generator_answer()),
    ]


AUTO_PROBES = json.dumps({
    "valid": ["1\n1 1\n", "2\n1000000000 1000000000\n1 1\n"],
    "invalid": [{"input": "0\n", "why": "n below 1"}, {"input": "1\n0 5\n", "why": "deadline 0"},
                {"input": "2\n1 1\n", "why": "one line missing"},
                {"input": "1\n1 1000000001\n", "why": "fee above 1e9"}],
})

AUTO_GENERATOR = '''import itertools
import random


def generate(args):
    mode = args.get("mode", "random")
    n = args.get("n", 3)
    if mode == "all":
        out = []
        for rows in itertools.product([(1, 1), (1, 2), (2, 2)], repeat=n):
            out.append("\\n".join([str(n)] + ["%d %d" % r for r in rows]) + "\\n")
        return out
    if mode == "worst":
        return worst(n)
    rows = ["%d %d" % (random.randint(1, n), random.randint(1, 10**9)) for _ in range(n)]
    return "\\n".join([str(n)] + rows) + "\\n"
'''
AUTO_GENERATOR_FIXED = AUTO_GENERATOR + '''

def worst(n):
    rows = ["%d %d" % (n, i + 1) for i in range(n)]
    return "\\n".join([str(n)] + rows) + "\\n"
'''
AUTO_COMMANDS = {"small": ["n=2 mode=all"], "random": ["n=5 seed=1", "n=5 seed=2"], "tle": ["n=2000 mode=worst"]}


def auto_generator_answer(code: str = AUTO_GENERATOR) -> str:
    return ("Three strategies.\n\n" + fenced(code) + "\n\n"
            + "\n\n".join(commands_block(lines, bucket) for bucket, lines in AUTO_COMMANDS.items()))


AUTO_SCENARIOS = json.dumps([
    {"input": "2\n1 3\n1 7\n", "output": "7\n", "correct": True},
    {"input": "2\n1 3\n1 7\n", "output": "10\n", "correct": False},
    {"input": "1\n1 5\n", "output": "5\n", "correct": True},
    {"input": "1\n1 5\n", "output": "five\n", "correct": False},
])

AUTO_PROBES_RULE = r"near-valid illegal inputs for this problem"
AUTO_VALIDATOR = r"the one that judges a bench of valid and near-valid"
AUTO_VALIDATOR_REVISE = r"## The best validator so far"
AUTO_GENERATOR_RULE = r"in three groups|as many as each of\s+these three groups needs"
AUTO_GENERATOR_REVISE = r"rejected\. Fix them\."
AUTO_SCENARIOS_RULE = r"Write \d+ scenarios"
AUTO_CHECKER = r"judges a bench of\s+labelled outputs best"


def autocode_rules() -> list[tuple[str, str | list[str]]]:
    return [
        (AUTO_PROBES_RULE, fenced(AUTO_PROBES, "json")),
        (AUTO_VALIDATOR_REVISE, fenced(VALIDATOR)),
        (AUTO_VALIDATOR, [fenced(ACCEPT_ALL_VALIDATOR), fenced(STRICT_VALIDATOR), fenced(LOOSE_VALIDATOR)]),
        (AUTO_GENERATOR_REVISE, "worst() was missing.\n\n" + fenced(AUTO_GENERATOR_FIXED)),
        (AUTO_GENERATOR_RULE, auto_generator_answer()),
        (AUTO_SCENARIOS_RULE, fenced(AUTO_SCENARIOS, "json")),
        (AUTO_CHECKER, [fenced(CHECK_ACCEPT_ALL), fenced(CHECK_TOKENS), fenced(CHECK_CRASH)]),
    ]


def agent_rules() -> list[tuple[str, str | list[str]]]:
    """Every agent's templates (autocode's phrases first: they are more specific)."""
    return autocode_rules() + ccplus_rules()
