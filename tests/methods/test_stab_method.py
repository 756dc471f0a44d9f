"""STAB generator synthesis end to end with scripted models: the input reader and
checker; one batch call returning five generators (the authors' shape) with failed
ones asked for again, the per-test/repair/reject options; clean ablations (Base and
−M1 never see a parsed constraint); sampling per Appendix A; every variant (stab,
stab-base, stab-no-m1, stab-no-m2) on real zoo-mini problems."""

from __future__ import annotations

import asyncio
from functools import lru_cache

import pytest

from tczoo.methods.stab.constraints import Chain, parse_constraints
from tczoo.methods.stab.inputs import LayoutError, checker_for, infer_layout, read_input
from tczoo.llm import LLMClient, LLMSettings, Session
from tczoo.method import Context
from tczoo.methods.stab.method import Stab, StabBase, StabNoM1, StabNoM2, build_spec, generators_from
from tczoo.templates import Prompts
from tcbench_fixtures import failures, fenced, script, zoo_problem
from tczoo.schema import Setting, Task

# --------------------------------------------------------------------------- input reader

ZM07_INPUT = r"""## Input

The first line contains three integers $n$, $m$ and $k$ ($1 \le n \le 2 \cdot 10^5$, $0 \le m \le 2 \cdot 10^5$, $1 \le k \le n$).

The second line contains $k$ distinct integers $s_1, \ldots, s_k$ ($1 \le s_i \le n$) — the junctions with fire stations.

Each of the next $m$ lines contains three integers $u_i$, $v_i$, $w_i$ ($1 \le u_i, v_i \le n$, $1 \le w_i \le 10^9$) — a road.

The next line contains one integer $q$ ($1 \le q \le 10^5$), and the last line contains $q$ integers $x_1, \ldots, x_q$ ($0 \le x_j \le 10^{18}$).

## Output

Print q lines.
"""

MULTI = """Input

The first line contains one integer t (1 ≤ t ≤ 10^4) — the number of test cases. Each test case consists of three lines:

- the first line contains two integers n and k (1 ≤ k ≤ n ≤ 2·10^5);
- the second line contains a string s of length n made of the characters . and #;
- the third line contains n integers a_1, a_2, …, a_n (−10^9 ≤ a_i ≤ 10^9).

The sum of n over all test cases does not exceed 2·10^5.

Output

Print one line per test case.
"""


def test_layout_of_a_multi_line_statement_is_read_in_sentence_order():
    layout = infer_layout(ZM07_INPUT)
    assert layout.describe() == "n m k s[k] m×[u v w] q x[q]"
    reading = read_input("3 2 1\n2\n1 2 5\n2 3 7\n2\n0 9\n", layout)
    assert reading.values == {"n": 3, "m": 2, "k": 1, "s": [2], "u": [1, 2], "v": [2, 3], "w": [5, 7],
                              "q": 2, "x": [0, 9]}


def test_layout_row_phrasings_and_offset_counts():
    tree = ("## Input\n\nThe first line contains one integer n (1 ≤ n ≤ 10^5).\n\n"
            "Each of the next n − 1 lines contains two integers u and v (1 ≤ u, v ≤ n).\n\n## Output\n")
    assert infer_layout(tree).describe() == "n n-1×[u v]"
    assert read_input("3\n1 2\n2 3\n", infer_layout(tree)).values == {"n": 3, "u": [1, 2], "v": [2, 3]}
    ith = ("## Input\n\nThe first line contains one integer $n$.\n\n"
           "The $i$-th of the next $n$ lines contains two integers $t_i$ and $w_i$.\n")
    assert infer_layout(ith).describe() == "n n×[t w]"


def test_multi_test_layout_reads_each_case_and_checks_the_sum_over_tests():
    layout = infer_layout(MULTI)
    assert layout.describe() == "t t×[n k s:str a[n]] (test cases)" and layout.multitest == "t"
    checker = checker_for(MULTI, parse_constraints(MULTI).constraints, ["2\n2 1\n..\n1 2\n1 1\n.\n-5\n"])
    assert checker.active and checker.dropped == []
    assert checker.check("1\n3 2\n.#.\n1 2 3\n") == []
    assert checker.check("1\n3 4\n.#.\n1 2 3\n") == ["test 1: 1 ≤ k ≤ n ≤ 200000: k = 4 > n = 3"]
    assert checker.check("1\n3 2\n.#\n1 2 3\n")[0].startswith("format: string s has length 2")
    assert checker.check("1\n3 2\n.#.\n1 2\n") == ["format: a needs 3 values, 2 left"]
    assert checker.check("1\n3 2\n.#.\n1 2 3 4\n")[0].startswith("format: 1 extra tokens")
    assert checker.check("1\n3 2\n.#.\n1 x 3\n") == ["format: expected an integer for a, got 'x'"]
    big = "2\n" + ("100000 1\n" + "." * 100000 + "\n" + " ".join(["1"] * 100000) + "\n") + \
          ("100001 1\n" + "." * 100001 + "\n" + " ".join(["1"] * 100001) + "\n")
    assert checker.check(big) == ["∑(n) ≤ 200000 (over test cases, t terms): total 200001 over 2 tests"]


def test_constraints_contradicted_by_a_sample_are_dropped_and_an_unverified_layout_is_not_used():
    # A parser slip seen on a real statement: "1 ≤ u_i, v_i ≤ n, 1 ≤ w_i ≤ 10^9" read as the
    # chain u_i ≤ w_i ≤ v_i. The problem's own sample contradicts it, so it is not used.
    slip = Chain(terms=["u_i", "w_i", "v_i"], strict=[False, False])
    records = parse_constraints(ZM07_INPUT).constraints + [slip]
    checker = checker_for(ZM07_INPUT, records, ["3 2 1\n2\n1 2 5\n2 3 7\n2\n0 9\n"])
    assert checker.active and checker.dropped == ["u_i ≤ w_i ≤ v_i"]
    assert checker.check("3 1 1\n2\n1 2 50\n1\n0\n") == []
    assert checker.check("3 1 1\n4\n1 2 50\n1\n0\n") == ["1 ≤ s_i ≤ n: s_i = 4 > n = 3"]
    misread = checker_for(ZM07_INPUT, [], ["3 2 1\n2\n1 2 5\n"])  # the sample does not fit the layout
    assert not misread.active and "misreads sample 1" in misread.note
    assert misread.check("anything") == []  # no layout: nothing can be checked
    with pytest.raises(LayoutError):
        infer_layout("## Input\n\nThe first line contains the description of the maze.\n")


KATTIS_STYLE = r"""## Input

The input consists of:

- One line with two integers $n$ and $\ell$ ($1 \le n \le 1000$, $1 \le \ell \le 10$), the number of towers
  and their height.
- One line with $n$ integers $h_1, \ldots, h_n$ ($1 \le h_i \le \ell$).
- $n$ lines, each with a string $s$ (one of "`red`" or "`blue`") and an integer $a$ ($1 \le a < n$).

## Output

Output one integer.
"""


def test_kattis_style_line_phrasings_are_read():
    """BAPC/Kattis statements say "One line with ..." and "n lines, each with ..."."""
    layout = infer_layout(KATTIS_STYLE)
    assert layout.describe() == "n ℓ h[n] n×[s:str a]"
    checker = checker_for(KATTIS_STYLE, parse_constraints(KATTIS_STYLE).constraints, ["2 3\n1 3\nred 1\nblue 1\n"])
    assert checker.active and checker.dropped == []
    assert checker.check("3 5\n5 1 2\nred 1\nred 2\nblue 2\n") == []
    assert checker.check("3 5\n5 6 2\nred 1\nred 3\nblue 2\n") == [
        "1 ≤ h_i ≤ ℓ: h_i = 6 > ℓ = 5", "1 ≤ a < n: a = 3 ≥ n = 3"]


@pytest.mark.e2e
def test_zoo_mini_layouts_accept_every_golden_test(sandbox):
    for short in ("zm01", "zm05", "zm09"):
        p = zoo_problem(sandbox, short)
        checker = checker_for(p.statement, parse_constraints(p.statement).constraints, [s.input for s in p.samples])
        assert checker.active, (short, checker.note)
        assert [t.name for t in p.golden_tests if checker.check(t.input)] == []


# --------------------------------------------------------------------------- generators on zm01

GOOD = """def generate() -> str:
    n = 2000
    rows = [f"{n - i} {10**9 - i}" for i in range(n)]
    return str(n) + "\\n" + "\\n".join(rows) + "\\n"
"""
CRASH = "def generate():\n    return 1 // 0\n"
REPAIRED = 'def generate() -> str:\n    return "3\\n1 5\\n2 6\\n3 7\\n"\n'
OTHER = 'def generate() -> str:\n    return "2\\n9 9\\n8 8\\n"\n'
TOO_BIG = 'def generate() -> str:\n    n = 200001\n    return f"{n}\\n" + "1 1\\n" * n\n'
STILL_TOO_BIG = 'def generate() -> str:\n    n = 300000\n    return f"{n}\\n" + "1 1\\n" * n\n'
LOOP = "def generate():\n    while True:\n        pass\n"
SHORT = 'def generate():\n    return "3\\n1 5\\n"\n'
RANDOM = 'import random\n\ndef generate():\n    n = 50\n    return f"{n}\\n" + "".join(f"{random.randint(1, 9)} 1\\n" for _ in range(n))\n'


def batch(*codes: str) -> str:
    return "\n\n".join(f"Generator {k}:\n{fenced(c)}" for k, c in enumerate(codes, 1))


def generate(cls, problem, model: str, sandbox, **params):
    """One suite, as the efficiency runner would ask for it, plus every exchange made
    (messages and sampling parameters), so that prompts can be inspected."""
    exchanges: list[dict] = []
    task = Task.from_problem(problem, cls.setting, budget=5, seed=0)
    method = cls(**params)
    client = LLMClient(model, LLMSettings(cache=False, retries=0), on_exchange=exchanges.append)
    ctx = Context(llm=Session(client), sandbox=sandbox, prompts=Prompts(), method=cls.name, seed=0,
                  params=method.params.model_dump())
    suite = ctx.finish(asyncio.run(method.generate(task, ctx)))
    return suite, exchanges


def prompts_of(exchanges: list[dict]) -> list[str]:
    return ["\n".join(m["content"] for m in e["messages"]) for e in exchanges]


def test_batch_answers_parse_as_fenced_blocks_or_the_authors_json() -> None:
    assert generators_from(batch(GOOD, CRASH), 5) == [GOOD.strip() + "\n", CRASH.strip() + "\n"]
    assert generators_from(batch(GOOD, "print(1)", OTHER), 2) == [GOOD.strip() + "\n", None]
    authors = '{"tc_1": "def generate() -> str:\\n    return \\"1\\\\n1 1\\\\n\\"", "tc_2": "oops"}'
    assert generators_from(authors, 5) == ['def generate() -> str:\n    return "1\\n1 1\\n"', None]
    assert generators_from("no code at all", 5) == []


def test_one_batch_call_then_the_same_prompt_again_for_failed_generators(sandbox, tmp_path):
    """The authors' shape: one call returns five generators; slots whose generator did
    not run are filled from the next answer to the same prompt. Inputs that break the
    statement are kept and recorded (validity="record")."""
    problem = zoo_problem(sandbox, "zm01")
    model = script(tmp_path / "m.jsonl", [(r"Write 5 different generators", [
        batch(GOOD, CRASH, TOO_BIG, LOOP, SHORT),
        batch(CRASH, REPAIRED, CRASH, OTHER, CRASH),
    ])])
    suite, exchanges = generate(Stab, problem, model, sandbox, retrieval="keyword", gen_time_ms=300)
    assert len(exchanges) == 2  # the batch, then once more for g1 and g3
    assert all(e["params"]["temperature"] == 1.0 and e["params"]["top_p"] == 0.95
               and e["params"]["max_tokens"] == 4096 for e in exchanges)
    got = {t.meta["generator"]: t for t in suite.tests}
    assert sorted(got) == ["g0", "g1", "g2", "g3", "g4"]
    assert got["g1"].input == "3\n1 5\n2 6\n3 7\n" and got["g3"].input == "2\n9 9\n8 8\n"
    assert [got[g].meta["calls"] for g in sorted(got)] == [1, 2, 1, 2, 1]
    assert got["g2"].meta["violations"] == ["1 ≤ n ≤ 200000: n = 200001 > 200000"]
    assert got["g4"].meta["violations"] == ["format: the input ends before d"]
    assert got["g0"].meta["violations"] == [] and all(t.meta["checked"] for t in suite.tests)
    assert sorted(f for f in failures(suite) if f[0] != "scenarios") == sorted([
        ("generator", "crash", "g1"), ("generator", "timeout", "g3"),
        ("validator", "invalid_input_kept", "g2"), ("validator", "invalid_input_kept", "g4"),
    ])


def test_per_test_calls_repair_prompts_and_rejection_are_options(sandbox, tmp_path):
    """Our options: one call per generator, a repair prompt with the error, and
    rejecting inputs that break a parsed constraint."""
    problem = zoo_problem(sandbox, "zm01")
    model = script(tmp_path / "model.jsonl", [
        (r"Your previous generator failed", [fenced(c) for c in ["unused", REPAIRED, STILL_TOO_BIG, LOOP, "no code"]]),
        (r"Write generator \d of 5", [fenced(c) for c in [GOOD, CRASH, TOO_BIG, LOOP, SHORT]]),
    ])
    suite, exchanges = generate(Stab, problem, model, sandbox, retrieval="keyword", gen_time_ms=300,
                                generation="per_test", retry="repair", retries=1, validity="reject")
    assert len(exchanges) == 5 + 4
    assert [(t.origin, t.meta["calls"]) for t in suite.tests] == [("stab/g0", 1), ("stab/g1", 2)]
    assert suite.tests[1].input == "3\n1 5\n2 6\n3 7\n"
    got = failures(suite)
    assert sorted(f for f in got if f[0] != "scenarios") == sorted([
        ("generator", "crash", "g1"),
        ("generator", "constraint_violation", "g2"), ("generator", "constraint_violation", "g2"),
        ("generator", "timeout", "g3"), ("generator", "timeout", "g3"),
        ("generator", "format_error", "g4"), ("parse", "missing_definition", "g4/repair1"),
    ])
    details = sorted(f.detail for f in suite.provenance.failures if f.item == "g2")
    assert details == ["1 ≤ n ≤ 200000: n = 200001 > 200000", "1 ≤ n ≤ 200000: n = 300000 > 200000"]
    repair_prompts = [p for p in prompts_of(exchanges) if "previous generator failed" in p]
    assert any("n = 200001 > 200000" in p for p in repair_prompts)  # stab has M1: allowed
    assert [(a.program.name, a.ok) for a in sorted(suite.artifacts, key=lambda a: a.program.name)] == [
        ("g0", True), ("g1", True), ("g2", False), ("g3", False), ("g4", False)]


def test_generators_are_seeded_and_retries_are_bounded(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm01")
    model = script(tmp_path / "m.jsonl", [(r"Write 3 different generators", batch(RANDOM, RANDOM, CRASH))])
    first, calls = generate(Stab, problem, model, sandbox, retrieval="keyword", generators=3, retries=2)
    again, _ = generate(Stab, problem, model, sandbox, retrieval="keyword", generators=3, retries=2)
    # Generator k runs with random.seed(k): reproducible, and distinct across generators.
    assert [t.input for t in first.tests] == [t.input for t in again.tests] and len(first.tests) == 2
    assert first.tests[0].input != first.tests[1].input
    assert len(calls) == 3  # the batch and two retries, all crashing in slot 3
    assert [f for f in failures(first) if f[0] == "generator"] == [("generator", "crash", "g2")] * 3


# --------------------------------------------------------------------------- clean ablations

VIOLATOR = 'def generate() -> str:\n    n = 300000\n    return f"{n}\\n" + "5 5\\n" * n\n'


@pytest.mark.parametrize("validity", ["record", "reject"])
@pytest.mark.parametrize("cls", [Stab, StabNoM2, StabNoM1, StabBase], ids=lambda c: c.name)
def test_base_and_no_m1_never_see_a_parsed_constraint(sandbox, tmp_path, cls, validity):
    """Issue 14 (6): the spec, the validity gate and the repair prompt of Base and −M1
    carry no parsed constraint. A violating input is recorded for every variant; it is
    rejected (and its violation shown in the repair prompt) only where M1 is on."""
    problem = zoo_problem(sandbox, "zm01")
    model = script(tmp_path / "m.jsonl", [
        (r"Your previous generator failed", fenced(REPAIRED)),
        (r"Write 1 different generators", batch(VIOLATOR)),
    ])
    suite, exchanges = generate(cls, problem, model, sandbox, retrieval="keyword", generators=1,
                                validity=validity, retry="repair", retries=1)
    texts = prompts_of(exchanges)
    rejected = validity == "reject" and cls.use_boundary
    if cls.use_boundary:  # the boundary and the rendered constraints are in M1's spec
        assert "`n` = 200000" in texts[0] and "1 ≤ n ≤ 200000" in texts[0]
    else:  # the statement writes 2 \cdot 10^5; the parsed 200000 must appear nowhere
        assert not any("200000" in t or "n = 300000" in t for t in texts)
    if rejected:
        assert len(exchanges) == 2 and "n = 300000 > 200000" in texts[1]
        assert [t.input for t in suite.tests] == ["3\n1 5\n2 6\n3 7\n"]
    else:
        assert len(exchanges) == 1
        [test] = suite.tests
        assert test.input.startswith("300000\n") and test.meta["violations"] == ["1 ≤ n ≤ 200000: n = 300000 > 200000"]
        assert ("validator", "invalid_input_kept", "g0") in failures(suite)


# --------------------------------------------------------------------------- variants

@lru_cache(maxsize=None)
def _zm02(sandbox):
    from tczoo.benchmarks import load_benchmark

    return load_benchmark("zoo-mini", ["zm02"], sandbox=sandbox)[0]


def _case(n: int) -> str:
    return (f'def generate() -> str:\n    n = {n}\n'
            f'    return f"1\\n{{n}} 7\\n" + " ".join(str(i * 7) for i in range(n)) + "\\n"\n')


VARIANT_RULES = [
    # The spec's sections say which modules are on; each answer encodes what it saw.
    (r"(?s)Resolved boundary.*Adversarial scenarios", batch(_case(200000), _case(200000))),
    (r"Resolved boundary", batch(_case(100000), _case(100000))),
    (r"Adversarial scenarios", batch(_case(1000), _case(1000))),
    (r"Structured generation specification", batch(_case(10), _case(10))),
]


@pytest.mark.parametrize("cls, n", [(Stab, 200000), (StabNoM2, 100000), (StabNoM1, 1000), (StabBase, 10)],
                         ids=["stab", "stab-no-m2", "stab-no-m1", "stab-base"])
def test_each_variant_end_to_end_on_zm02(sandbox, tmp_path, cls, n):
    problem = _zm02(sandbox)
    model = script(tmp_path / "m.jsonl", VARIANT_RULES)
    suite, exchanges = generate(cls, problem, model, sandbox, retrieval="keyword", generators=2)
    assert cls.setting is Setting.SPEC and cls.runner == "efficiency" and len(exchanges) == 1
    # Two generators, both with the same construction: two tests, as the authors'
    # generator keeps them (N_gen counts both); the repeat is recorded
    assert len(suite.tests) == 2 and suite.tests[0].input == suite.tests[1].input
    assert suite.tests[0].input.split("\n")[1] == f"{n} 7"
    assert failures(suite) == [("generator", "duplicate_input_kept", "g1")]
    assert suite.tests[1].meta["duplicate_of"] == "g0" and "duplicate_of" not in suite.tests[0].meta
    # which scenarios M2 retrieved, and how, is on every test of the variants that retrieve
    if cls.use_scenarios:
        assert suite.tests[0].meta["scenarios"]["via"] == ["keyword"] and suite.tests[0].meta["scenarios"]["ids"]
    else:
        assert "scenarios" not in suite.tests[0].meta
    # our option drops the repeat instead
    dropped, _ = generate(cls, problem, model, sandbox, retrieval="keyword", generators=2, duplicates="drop")
    assert len(dropped.tests) == 1 and failures(dropped) == [("generator", "duplicate_input", "g1")]


def test_full_spec_holds_boundary_options_and_distinct_targets(sandbox):
    problem = _zm02(sandbox)
    task = Task.from_problem(problem, Setting.SPEC)
    spec, notes = build_spec(Stab(retrieval="keyword"), task)
    assert notes == []
    assert spec.boundary == {"t": 1, "n": 200000, "k": 1000000000, "a_i": 1000000000}
    assert [o["name"] for o in spec.options] == ["data_max", "tests_max"]
    assert [s["id"] for s in spec.scenarios] == ["number_theory", "two_pointers"]
    targets = [spec.variables(k, 5)["target"]["scenario"] for k in range(5)]
    assert targets == ["Number theory", "Two pointers", "Number theory", "Number theory", "Number theory"]
    assert len({spec.variables(k, 5)["target"]["id"] for k in range(4)}) == 4
    batch_targets = spec.variables(0, 5)["targets"]
    assert [t["id"] for t in batch_targets] == [spec.variables(k, 5)["target"]["id"] for k in range(5)]
    base, _ = build_spec(StabBase(), task)
    assert base.boundary is None and base.scenarios == [] and base.variables(0, 5)["target"] is None
    prompt = "\n".join(m["content"] for m in Prompts().render("stab/generate_batch", **spec.variables(0, 5)))
    assert "Write 5 different generators" in prompt
    assert all(f"{k}. **{t['name']}**" in prompt for k, t in enumerate(batch_targets, 1))


def test_sampling_defaults_are_appendix_a():
    params = Stab().params
    assert (params.temperature, params.top_p, params.max_tokens, params.generators) == (1.0, 0.95, 4096, 5)
    assert (params.generation, params.retry, params.validity, params.retrieval) == (
        "batch", "resample", "record", "keyword_first")
