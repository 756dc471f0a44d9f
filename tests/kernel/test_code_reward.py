"""The code reward (``tczoo.rl.code``): a completion's program judged on tests in the
sandbox, as verl's ``prime_code`` judges ``codecontests``/``apps`` data.

- The program is the completion's last runnable fenced block (an unlabelled one is
  Python), else the whole text.
- AC on every test: 1.0; a wrong output, a crash, a timeout, a compile error: 0.0, the
  program stopping at its first failing test (``continuous``: every test runs, the share
  passed); the sandbox failing a run: no reward, never a score; no tests: no reward.
- Calls from many threads are judged in shared batches; identical programs once.
- What tczoo will not judge (call-based tests, bad JSON, mismatched lengths) is one line.
"""

from __future__ import annotations

import threading

import pytest

from tczoo.rewards import RewardConfigError
from tczoo.rl.code import CodeScorer, CodeTests, extract_program

TESTS = {"inputs": ["1 2\n", "5 7\n", "100 -1\n"], "outputs": ["3\n", "12\n", "99\n"]}
ADD = "a, b = map(int, input().split())\nprint(a + b)\n"
ADD_CPP = "#include <cstdio>\nint main(){long long a,b;scanf(\"%lld %lld\",&a,&b);printf(\"%lld\\n\",a+b);}\n"


def fenced(code: str, lang: str = "python") -> str:
    return f"Let me think.\n```{lang}\n{code}```\nDone."


def test_the_program_is_the_last_runnable_block():
    assert extract_program("```python\nx=1\n```\ntext\n```python\nprint(2)\n```") == ("python", "print(2)\n")
    assert extract_program("```\nprint(3)\n```") == ("python", "print(3)\n")
    assert extract_program("```cpp\nint main(){}\n```\n```text\nnot code\n```") == ("cpp", "int main(){}\n")
    assert extract_program("print(4)") == ("python", "print(4)")


@pytest.fixture(scope="module")
def scorer(sandbox):
    with CodeScorer(sandbox=sandbox) as s:
        yield s


@pytest.mark.parametrize("fork_server", [True, False], ids=["fork-server", "process-per-test"])
def test_verdicts_and_scores(sandbox, fork_server):
    """The same verdicts whichever way Python programs run: the fork server (one sandboxed
    process per round of tests, a fork per test) or a sandboxed process per test."""
    answers = {
        "right": fenced(ADD),
        "right, reading bytes": fenced("import sys\na, b = map(int, sys.stdin.buffer.read().split())\n"
                                       "sys.stdout.write(str(a + b) + '\\n')\n"),
        "right in C++": fenced(ADD_CPP, "cpp"),
        "wrong output": fenced("a, b = map(int, input().split())\nprint(a - b)\n"),
        "wrong on the last test only": fenced("a, b = map(int, input().split())\nprint(a + b if b > 0 else 0)\n"),
        "crash": fenced("print(1 // 0)\n"),
        "loops": fenced("while True:\n    pass\n"),
        "syntax error": fenced("def f(:\n"),
        "compile error": fenced("int main( {", "cpp"),
    }
    with CodeScorer(sandbox=sandbox, time_limit_ms=1000, fork_server=fork_server) as scorer:
        got = dict(zip(answers, scorer.score_many(list(answers.values()), [TESTS] * len(answers))))
        assert scorer.judge.forked == (6 if fork_server else 0)  # syntax error: cannot run  # the Python programs that ran
    assert {k: r.score for k, r in got.items()} == {
        "right": 1.0, "right, reading bytes": 1.0, "right in C++": 1.0, "wrong output": 0.0, "wrong on the last test only": 0.0, "crash": 0.0,
        "loops": 0.0, "syntax error": 0.0, "compile error": 0.0}
    assert got["right"].verdicts == ["AC"] * 3 and got["right"].passed is True
    assert got["wrong output"].verdicts == ["WA", "", ""]  # stopped at its first failing test
    assert got["wrong on the last test only"].verdicts == ["AC", "AC", "WA"]
    assert got["crash"].verdicts[0] == "RE" and got["loops"].verdicts[0] == "TLE"
    assert got["syntax error"].reason.startswith("cannot_run") and got["compile error"].reason.startswith("cannot_run")


def test_continuous_scores_the_share_of_tests_passed(sandbox):
    with CodeScorer(sandbox=sandbox, continuous=True, time_limit_ms=1000) as s:
        [partial, right] = s.score_many([fenced("a, b = map(int, input().split())\nprint(a + b if b > 0 else 0)\n"),
                                         fenced(ADD)], [TESTS, TESTS])
    assert partial.score == pytest.approx(2 / 3) and partial.passed is False and partial.verdicts == ["AC", "AC", "WA"]
    assert right.score == 1.0


class _Dying:
    """The real sandbox, except that a job whose program (or the program it hands the fork
    server) contains ``marker`` comes back SE, as from a worker that died on each retry."""

    def __init__(self, sandbox, marker: str):
        self._sandbox, self.marker = sandbox, marker

    def __getattr__(self, name):
        return getattr(self._sandbox, name)

    def _marked(self, job) -> bool:
        return self.marker in job.program.code or self.marker in (job.files or {}).get("main.py", "")

    def run_many(self, jobs, **kw):
        from tczoo.sandbox.types import RunResult, Verdict

        jobs = list(jobs)
        real = iter(self._sandbox.run_many([j for j in jobs if not self._marked(j)], **kw))
        for j in jobs:
            yield RunResult(verdict=Verdict.SE, message="worker failed: WorkerDied") if self._marked(j) else next(real)


@pytest.mark.parametrize("fork_server", [True, False], ids=["fork-server", "process-per-test"])
def test_a_failing_sandbox_gives_no_reward_and_no_tests_none(sandbox, fork_server):
    dying_code = "a, b = map(int, input().split())\nprint(a * 1 + b)\n"
    with CodeScorer(sandbox=_Dying(sandbox, "print(a * 1 + b)"), fork_server=fork_server) as s:
        [dying, fine] = s.score_many([fenced(dying_code), fenced(ADD)], [TESTS, TESTS])
    assert dying.score is None and dying.reason.startswith("infrastructure"), dying.as_dict()
    assert fine.score == 1.0
    with CodeScorer(sandbox=sandbox, fork_server=fork_server) as s:
        [empty] = s.score_many([fenced(ADD)], [{"inputs": [], "outputs": []}])
    assert empty.score is None and empty.reason.startswith("undefined")


def test_calls_from_many_threads_share_batches_and_identical_programs_are_judged_once(sandbox):
    with CodeScorer(sandbox=sandbox, window_s=0.2) as s:
        results: list = [None] * 12
        barrier = threading.Barrier(12)

        def call(i: int) -> None:
            barrier.wait()
            code = ADD if i % 2 else "a, b = map(int, input().split())\nprint(a - b)\n"
            [results[i]] = s.score_many([fenced(code)], [TESTS])

        threads = [threading.Thread(target=call, args=(i,)) for i in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [r.score for r in results] == [0.0, 1.0] * 6
        assert s.batches < 12  # the calls met in shared batches


def test_what_tczoo_will_not_judge_is_one_line(scorer):
    with pytest.raises(RewardConfigError, match="call-based tests"):
        scorer.score_many([fenced(ADD)], [{"inputs": ["[1]"], "outputs": ["1"], "fn_name": "f"}])
    with pytest.raises(RewardConfigError, match="not JSON"):
        scorer.score_many([fenced(ADD)], ["{nope"])
    with pytest.raises(RewardConfigError, match="2 inputs for 1 outputs"):
        CodeTests.parse({"inputs": ["1", "2"], "outputs": ["1"]})
    with pytest.raises(RewardConfigError, match="2 completions for 1"):
        scorer.score_many([ADD, ADD], [TESTS])


def test_verls_calling_convention_for_the_code_reward(sandbox):
    import asyncio
    import json

    from tczoo.rl.code import close_code_scorers
    from tczoo.rl.verl import NoReward, compute_code_score, compute_code_score_async

    try:
        got = compute_code_score("codecontests", fenced(ADD), json.dumps(TESTS), {}, workers=1)
        assert got["score"] == 1.0 and got["tczoo_passed"] == 1.0 and got["tczoo_ok"] == 1.0
        got = asyncio.run(compute_code_score_async("codecontests", fenced("print(0)\n"), TESTS, workers=1))
        assert got["score"] == 0.0 and got["tczoo_passed"] == 0.0
        with pytest.raises(NoReward, match="undefined: no tests"):
            compute_code_score("codecontests", fenced(ADD), {"inputs": [], "outputs": []}, workers=1)
    finally:
        close_code_scorers()


HOSTILE = {  # each judged on TESTS: none may pass, none may pass for the sandbox's failure
    "kills the fork server": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nprint(3)\n",
    "stops the fork server": "import os, signal\nos.kill(os.getppid(), signal.SIGSTOP)\nprint(3)\n",
    "prints the server's lines": ("print('{\"i\": 0, \"exit\": 0, \"out\": \"3\\\\n\"}')\n"
                                  "print('{\"i\": 1, \"exit\": 0, \"out\": \"12\\\\n\"}')\n"),
    "forks": "import os\nos.fork()\nprint(3)\n",
}
# each prints "refused" when the server is out of its reach (the test's expected output),
# anything else when it got in
REACH = {
    "writes the server's channel": (
        "import os\nok = True\n"
        "for path in (f'/proc/{os.getppid()}/fd/1', f'/proc/{os.getppid()}/mem'):\n"
        "    try:\n"
        "        os.close(os.open(path, os.O_WRONLY))\n"
        "        ok = False\n"
        "    except OSError:\n"
        "        pass\n"
        "print('refused' if ok else 'WROTE')\n"),
    "ptraces the fork server": ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                                "print('ATTACHED' if libc.ptrace(16, os.getppid(), 0, 0) == 0 else 'refused')\n"),
    "lists the server's files": ("import os\ntry:\n    print(os.listdir(f'/proc/{os.getppid()}/fd'))\n"
                                 "except OSError:\n    print('refused')\n"),
}
REFUSED = {"inputs": ["1 2\n"], "outputs": ["refused\n"]}


def test_a_program_cannot_reach_or_forge_the_fork_servers_channel(sandbox):
    """Hostile programs through the fork server (a child of it, same uid, same jail): the
    server is not dumpable (no ptrace, no /proc/<pid>/fd or mem), the job allows no second
    child, what a program prints is only its own output; killing or stopping the server
    ends the program's own run as its failure (RE, TLE), never as the sandbox's."""
    with CodeScorer(sandbox=sandbox, time_limit_ms=300) as s:
        got = dict(zip(HOSTILE, s.score_many([fenced(c) for c in HOSTILE.values()], [TESTS] * len(HOSTILE))))
        reach = dict(zip(REACH, s.score_many([fenced(c) for c in REACH.values()], [REFUSED] * len(REACH))))
        assert s.judge.forked == len(HOSTILE) + len(REACH)
    for name, r in got.items():
        assert r.score == 0.0 and r.passed is False, (name, r.as_dict())
    assert got["kills the fork server"].verdicts[0] == "RE"
    assert got["stops the fork server"].verdicts[0] == "TLE"
    assert got["prints the server's lines"].verdicts[0] == "WA"
    assert got["forks"].verdicts[0] == "RE"
    for name, r in reach.items():
        assert r.score == 1.0, (name, r.as_dict())  # it printed "refused": the server was out of its reach
