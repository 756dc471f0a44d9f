"""S* (arXiv:2502.14382) through the CLI with a scripted model: self-debugging on the
public tests, grouping by synthesized inputs, a pairwise comparison on distinguishing
inputs executed in the sandbox and judged in both orders, and the pick scored by bestofn
beside the other selectors on the same candidates (by hand)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tczoo.methods.sstar import read_choice

FIXTURE = Path(__file__).parents[1] / "fixtures" / "humaneval" / "mini.jsonl"

CORRECT = ("```python\ndef span(values):\n    if not values:\n        return 0.0\n    return max(values) - "
           "min(values)\n"
           "```")
# passes both public tests (3 values, none) but not the golden check's [6, -1]
PAIRS_WRONG = ("```python\ndef span(values):\n    if len(values) == 2:\n        return 0.0\n"
               "    return max(values) - min(values) if values else 0.0\n```")
CRASHES = "```python\ndef span(values):\n    return max(values) - min(values)\n```"  # fails the public span([])
SORTED = "```python\ndef span(values):\n    s = sorted(values)\n    return s[-1] - s[0] if s else 0.0\n```"

RULES = [
    ("It fails this public test", CRASHES),  # the revision repeats the mistake
    ("Write a set of test \\*\\*inputs\\*\\*", "```json\n[[[1.0, 5.0]], [[2.0]]]\n```"),
    ("These two solutions do not always agree", "```json\n[[[5.0, 1.0]], [[7.0]]]\n```"),
    ("Solution A: `4\\.0`", "The right value is 4.0.\nAnswer: A"),
    ("Solution A: `0\\.0`", "Solution B returns the difference.\nAnswer: B"),
    ("Write a correct and efficient implementation", [CORRECT, PAIRS_WRONG, CRASHES, SORTED]),
]


def _run(tmp_path: Path, rules, params: dict | None = None):
    path = tmp_path / "rules.jsonl"
    with path.open("w") as fh:
        for match, answer in rules:
            fh.write(json.dumps({"match": match, "responses" if isinstance(answer, list) else "response": answer})
                     + "\n")
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method", "sstar", "--benchmark",
                           f"humaneval:{FIXTURE}", "--problems", "Mini/0", "--model", f"scripted:{path}",
                           "--params", json.dumps(params or {"sstar": {"solutions": 4}}), "--out", str(out),
                           "-f", "json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    [gen] = [json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines()]
    [score] = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    tables = {t["title"]: t for t in json.loads(proc.stdout)}
    prompts = [json.loads(x)["messages"][-1]["content"] for x in (out / "exchanges.jsonl").read_text().splitlines()]
    return gen["suite"], score, tables, prompts, f"scripted:{path}"


def test_sstar_picks_by_judged_distinguishing_inputs(tmp_path):
    suite, score, tables, prompts, model = _run(tmp_path, RULES)
    cands = [a for a in suite["artifacts"] if a["role"] == "candidate"]
    assert [a["program"]["name"] for a in cands] == [f"solution-{i}" for i in range(4)]
    # the crashing sample was revised twice (3 generations in all) and still fails span([])
    assert sum("It fails this public test" in p for p in prompts) == 2
    assert [bool(a["program"]["meta"].get("selected")) for a in cands] == [True, False, False, False]
    # one comparison (two groups: {0, 3} and {1}), asked in both orders
    assert sum("These two solutions do not always agree" in p for p in prompts) == 1
    assert sum("Both solutions were run on the same inputs" in p for p in prompts) == 2
    # the judged cases: the inputs where the two differ, with the chosen side's result
    assert [t["origin"] for t in suite["tests"][:2]] == ["public", "public"]
    assert sorted((t["input"], t["output"]) for t in suite["tests"][2:]) == [("[[1.0, 5.0]]", "4.0"),
                                                                              ("[[5.0, 1.0]]", "4.0")]
    assert score["detail"]["picked"] == 0 and score["detail"]["golden"] == [True, False, False, True]
    rows = {r["selector"]: r["sstar samples"] for r in tables["Best-of-N selection with generated tests (Table 3 "
                                                                 "layout)"]["rows"]}
    assert rows[f"own pick: sstar ({model})"] == 100.0 and rows["Original pass@1"] == 50.0
    # S*'s tests rank the same candidates: 0 and 3 pass all four, 2 all but span([]), 1 the two public ones
    assert rows[f"sstar ({model})"] == 100.0
    assert rows[f"dual agreement: sstar ({model})"] == 100.0
    assert rows[f"CodeRM voting: sstar ({model})"] == 100.0


def test_a_judge_that_contradicts_itself_decides_nothing(tmp_path):
    always_a = [r if not r[0].startswith("Solution A") else (r[0], "Answer: A") for r in RULES]
    suite, score, _, _, _ = _run(tmp_path, always_a)
    assert [t["origin"] for t in suite["tests"]] == ["public", "public"]  # no verdict, no judged test
    # no wins: the larger group ({0, 3}) is chosen, its first sample
    assert score["detail"]["picked"] == 0


def test_without_a_sample_passing_the_public_tests_the_best_one_is_picked(tmp_path):
    rules = [("It fails this public test", CRASHES),
             ("Write a correct and efficient implementation", [CRASHES, "no code at all", CRASHES])]
    suite, score, _, prompts, _ = _run(tmp_path, rules, {"sstar": {"solutions": 3, "rounds": 1}})
    assert not any("Write a set of test" in p for p in prompts)  # nothing to select among
    assert score["detail"]["picked"] == 0  # passes one public test of two; the empty sample none
    [note] = [a["note"] for a in suite["artifacts"] if a["program"]["meta"].get("selected")]
    assert note.startswith("no sample passes every public test")


def test_reading_the_judges_choice():
    assert read_choice("Thinking about A and B...\nAnswer: B") == "B"
    assert read_choice("**Answer:** tie") == "TIE"
    assert read_choice("answer - a\n...\nAnswer: B") == "B"  # the last one counts
    assert read_choice("I prefer the first one.") is None


# zm04 (stdin): the largest L with sum(a_i // L) >= k, 0 if none
RIBBON = ("import sys\n\ndata = sys.stdin.read().split()\nn, k = int(data[0]), int(data[1])\n"
          "a = list(map(int, data[2:2 + n]))\nlo, hi = 0, max(a)\nwhile lo < hi:\n    mid = (lo + hi + 1) // 2\n"
          "    if sum(x // mid for x in a) >= k:\n        lo = mid\n    else:\n        hi = mid - 1\nprint(lo)\n")
SHORT_ONLY = ("import sys\n\ndata = sys.stdin.read().split()\nn, k = int(data[0]), int(data[1])\n"
              "a = list(map(int, data[2:2 + n]))\nprint(next((L for L in range(min(a), 0, -1)\n"
              "            if sum(x // L for x in a) >= k), 0))\n")  # never tries L above the shortest ribbon
GREEDY = "n, k = map(int, input().split())\na = list(map(int, input().split()))\nprint(max(a) // k)\n"


def test_sstar_on_a_stdin_problem(tmp_path):
    rules = [
        ("It fails this public test", "```python\n" + GREEDY + "```"),
        ("Write a set of test \\*\\*inputs\\*\\*", '```json\n["2 1\\n1 10\\n", "1 1\\n5\\n"]\n```'),
        ("These two solutions do not always agree", '```json\n["2 2\\n1 20\\n"]\n```'),
        ("Solution A: `10`", "Answer: A"),
        ("Solution A: `1`", "Answer: B"),
        ("Write a correct and efficient Python program", ["```python\n" + RIBBON + "```",
                                                           "```python\n" + GREEDY + "```",
                                                           "```python\n" + SHORT_ONLY + "```"]),
    ]
    path = tmp_path / "rules.jsonl"
    with path.open("w") as fh:
        for match, answer in rules:
            fh.write(json.dumps({"match": match, "responses" if isinstance(answer, list) else "response": answer})
                     + "\n")
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method", "sstar", "--benchmark", "zoo-mini",
                           "--problems", "zm04", "--model", f"scripted:{path}", "--params",
                           json.dumps({"sstar": {"solutions": 3}}), "--out", str(out), "-f", "json"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    [gen] = [json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines()]
    suite = gen["suite"]
    # the greedy sample failed a public test (stdin samples) and was revised twice, in vain
    cands = [a for a in suite["artifacts"] if a["role"] == "candidate"]
    assert [bool(a["program"]["meta"].get("selected")) for a in cands] == [True, False, False]
    judged = {(t["input"], t["output"]) for t in suite["tests"] if t["origin"] != "public"}
    assert judged == {("2 1\n1 10\n", "10\n"), ("2 2\n1 20\n", "10\n")}
    [score] = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    assert score["detail"]["picked"] == 0 and score["detail"]["golden"][:2] == [True, False]
