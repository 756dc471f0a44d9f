"""Untrusted code that judges sees one case (issue 42 item 2): a checker, a special judge
or a model-written input validator runs each case in a sandboxed process of its own, the
case read before its code runs, its verdict the process's exit status. Each exploit that
worked on the batched driver (every case of a batch in one process, g's outputs first, the
batch's request file in the run directory, the time limit multiplied by the batch) is a
test here, on the real sandbox: it must earn no more than an honest checker would."""

from __future__ import annotations

import ast
import math
import time

from tczoo.execution import check_with_checker, validate_inputs
from tczoo.execution.oracle import checker_limits, checker_takes_expected

# Everything a checker's process can reach: files where the batch's request used to lie
# (its directory, /tmp, /dev/shm), its stdin from the start, every frame up the stack,
# every container the collector tracks, argv and the environment. The patterns are
# written so that they do not match their own text.
SNOOP = r'''
import gc, os, re, sys


def _reachable():
    parts = []
    for root in (".", "/tmp", "/dev/shm"):
        for base, _, files in os.walk(root):
            for name in files:
                try:
                    with open(os.path.join(base, name), "rb") as fh:
                        parts.append(fh.read(1 << 20).decode("latin-1"))
                except OSError:
                    pass
    try:
        os.lseek(0, 0, 0)
        parts.append(os.read(0, 1 << 20).decode("latin-1"))
    except OSError:
        pass
    frame = sys._getframe()
    while frame is not None:
        parts.append(repr(frame.f_locals))
        frame = frame.f_back
    for obj in gc.get_objects():
        if isinstance(obj, (dict, list, tuple)) and len(obj) < 10000:
            try:
                parts.append(repr(obj))
            except Exception:
                pass
    parts.append(repr(sys.argv) + repr(dict(os.environ)))
    return "\n".join(parts)


def _look(captured_output, expected_output):
    blob = _reachable()
    outputs = set(re.findall("Z{3}-[0-9]+", blob))
    expected = set(re.findall("Q{3}-[0-9]+", blob))
    assert captured_output in outputs, "the snoop does not even find its own output"
    assert outputs == {captured_output}, "another case's output: %r" % sorted(outputs)
    assert expected == ({expected_output} if expected_output else set()), "expected outputs: %r" % sorted(expected)
'''

PAIRS = [("in-1", "ZZZ-1"), ("in-1", "ZZZ-2"), ("in-2", "ZZZ-3"), ("in-2", "ZZZ-1")]
EXPECTED = ["QQQ-1", "QQQ-1", "QQQ-2", "QQQ-2"]


def test_a_checker_reaches_no_other_case_and_no_expected_output_it_does_not_take(sandbox):
    two = SNOOP + "\n\ndef check_output(generated_input, captured_output):\n    _look(captured_output, None)\n"
    assert not checker_takes_expected(two)
    checks = check_with_checker(sandbox, two, PAIRS, functional=False, expected=EXPECTED, time_ms=5000)
    assert [(c.kind, c.detail[:200]) for c in checks] == [("pass", "")] * 4


def test_a_special_judge_reaches_its_own_expected_output_only(sandbox):
    three = SNOOP + ("\n\ndef check_output(generated_input, captured_output, expected_output):\n"
                     "    _look(captured_output, expected_output)\n")
    assert checker_takes_expected(three)
    checks = check_with_checker(sandbox, three, PAIRS, functional=False, expected=EXPECTED, time_ms=5000)
    assert [(c.kind, c.detail[:200]) for c in checks] == [("pass", "")] * 4


def test_a_memoising_checker_sees_every_output_as_the_first(sandbox):
    # "the first output seen for an input is right", in memory and in files: each case
    # starts in a fresh process on a wiped jail, so every output is the first
    code = '''
import hashlib, os
SEEN = {}

def check_output(generated_input, captured_output):
    key = hashlib.sha256(generated_input.encode()).hexdigest()
    first = SEEN.setdefault(generated_input, captured_output)
    for path in ("/tmp/memo-" + key, "memo-" + key, "/dev/shm/memo-" + key):
        try:
            with open(path) as fh:
                first = fh.read()
        except OSError:
            try:
                with open(path, "w") as fh:
                    fh.write(captured_output)
            except OSError:
                pass
    assert captured_output == first, "not the first output seen"
'''
    checks = check_with_checker(sandbox, code, [("x", "g's"), ("x", "f's"), ("x", "another"), ("y", "g's")],
                                functional=False)
    assert [c.kind for c in checks] == ["pass"] * 4


def test_a_memoising_validator_judges_every_input_alone(sandbox):
    code = '''
SEEN = []

def validate_input(text):
    SEEN.append(text)
    return len(SEEN) == 1
'''
    assert [c.ok for c in validate_inputs(sandbox, code, ["1\n", "2\n", "3\n"])] == [True, True, True]


def test_what_a_checker_can_sniff_is_the_same_for_every_case(sandbox):
    # argv, environment, working directory and what lies in it, in /tmp: nothing tells one
    # case's process from another's (so nothing tells g's output from f's)
    code = '''
import hashlib, os, sys

def check_output(generated_input, captured_output):
    seen = [sys.argv, sorted(os.environ.items()), os.getcwd(), sorted(os.listdir(".")), sorted(os.listdir("/tmp")),
            sys.flags, sys.path, os.listdir("/dev/shm")]
    assert False, "SNIFF" + hashlib.sha256(repr(seen).encode()).hexdigest()
'''
    checks = check_with_checker(sandbox, code, [("x", "1"), ("x", "2"), ("y", "1")], functional=False)
    sniffed = {c.detail.split("SNIFF", 1)[1].splitlines()[0] for c in checks}
    assert all(c.kind == "assertion" for c in checks) and len(sniffed) == 1


class _Spy:
    """The real sandbox, and the jobs it was given, in order."""

    def __init__(self, box):
        self.box, self.jobs = box, []

    def run_many(self, jobs):
        jobs = list(jobs)
        self.jobs += jobs
        return self.box.run_many(jobs)


def test_the_order_of_the_checks_says_nothing_about_whose_output_is_checked(sandbox):
    # a caller lists g's outputs first (as the triplet judgement does); the checks run in
    # an order shuffled by a seed drawn from the cases, the same order every time
    code = "def check_output(generated_input, captured_output):\n    pass\n"
    pairs = [(f"in-{i}", "G") for i in range(16)] + [(f"in-{i}", "F") for i in range(16)]
    orders = []
    for _ in range(2):
        spy = _Spy(sandbox)
        assert all(c.ok for c in check_with_checker(spy, code, pairs, functional=False))
        orders.append([ast.literal_eval(j.stdin)[1] for j in spy.jobs])
    assert orders[0] == orders[1] and len(orders[0]) == 32
    assert 4 <= orders[0][:16].count("G") <= 12  # g's checks are not the first ones
    spy = _Spy(sandbox)
    check_with_checker(spy, code, pairs, functional=False, seed=1)
    assert [ast.literal_eval(j.stdin)[1] for j in spy.jobs] != orders[0]


def test_the_same_output_from_g_and_f_is_checked_once(sandbox):
    spy = _Spy(sandbox)
    code = "import random\n\ndef check_output(generated_input, captured_output):\n    assert random.random() < 0.5\n"
    checks = check_with_checker(spy, code, [("x", "5"), ("x", "5"), ("x", "6")], functional=False)
    assert len(spy.jobs) == 2 and checks[0] == checks[1]
    # random is seeded alike in every case's process: the verdict is a function of the case
    again = check_with_checker(sandbox, code, [("x", "6"), ("x", "5")], functional=False)
    assert [c.kind for c in again] == [checks[2].kind, checks[0].kind]


def test_forged_results_count_for_nothing(sandbox):
    code = r'''
import os, sys

def check_output(generated_input, captured_output):
    forged = '@@tczoo-result-0123456789abcdef@@{"ok": true}\n{"ok": true, "value": [{"ok": true}]}\n'
    print(forged)
    sys.__stdout__.write(forged)
    sys.__stdout__.flush()
    os.write(1, forged.encode())
    os.write(2, forged.encode())
    if generated_input == "assert":
        assert False, "no"
    if generated_input == "crash":
        raise KeyError("oops")
    if generated_input == "exit":
        sys.exit(0)
'''
    checks = check_with_checker(sandbox, code, [("assert", ""), ("crash", ""), ("exit", ""), ("pass", "")],
                                functional=False)
    assert [c.kind for c in checks] == ["assertion", "crash", "crash", "pass"]


def test_a_sleeping_checker_is_bounded_per_case_not_per_batch(sandbox):
    code = "import time\n\ndef check_output(generated_input, captured_output):\n    time.sleep(1000)\n"
    limits = checker_limits(200)
    assert limits == checker_limits(200)  # one case's limits, whatever the number of cases
    n = 2 * sandbox.workers
    start = time.monotonic()
    checks = check_with_checker(sandbox, code, [(str(i), "") for i in range(n)], functional=False, time_ms=200)
    took = time.monotonic() - start
    assert [c.kind for c in checks] == ["timeout"] * n
    rounds = math.ceil(n / sandbox.workers)
    assert took < rounds * limits.wall_guard_ms / 1000 + 10, took


def test_a_checker_imports_typing_only_when_it_names_it(sandbox):
    from tczoo.execution import with_prelude

    plain = "def check_output(generated_input, captured_output):\n    assert captured_output\n"
    typed = ("def check_output(generated_input: str, captured_output: str) -> None:\n"
             "    parts: List[str] = captured_output.split()\n    assert Optional is not None and parts\n")
    lean, full = with_prelude(plain, lean=True), with_prelude(plain)
    assert "\nfrom typing import" not in "\n" + lean and lean.count("\n") == full.count("\n")
    assert with_prelude(typed, lean=True) == with_prelude(typed)
    checks = check_with_checker(sandbox, typed, [("x", "a b"), ("x", "")], functional=False)
    assert [c.kind for c in checks] == ["pass", "assertion"]
