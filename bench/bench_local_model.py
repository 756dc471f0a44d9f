"""The embedded model's speed (issue 21). A script, not a test.

    python bench/bench_local_model.py [--tokens 128] [--skip-quickstart] [--skip-baseline] [--model qwen2.5-coder-0.5b]

1. Decoding throughput of the engine for n = 1, 4, 8 samples of one prompt decoded
   together (aggregate completion tokens per second of wall time, prompt already
   cached), each n measured ``--rounds`` times interleaved, medians reported; ratios
   against n = 1 of the same process.
2. Time to first token of a fresh prompt (nothing cached) of about 700 tokens, the
   size of a quickstart prompt.
3. The pre-batching path, llama-cpp-python's ``Llama.create_chat_completion`` one
   sample at a time, on the same prompt (``--skip-baseline`` leaves it out).
4. The README quickstart (``tczoo run --method crux --problems zm01,zm03,zm04``) from
   an empty cache: ``TCZOO_CACHE`` is a fresh directory whose ``models/`` links the
   already assembled GGUF, so the wall time excludes the one-time assembly, which is
   timed on its own (``--assembly``).

The machine is shared: the script prints the load average before and after, and a
figure taken under load says so.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tczoo.llm.local.engine import EngineConfig, Request, engine_for
from tczoo.llm.local.gguf import EMBEDDED_FILE, embedded_model_path
from tczoo.llm.local.sampling import sample_seed

REPO = Path(__file__).resolve().parent.parent
LONG_ANSWER = [{"role": "user", "content": (
    "List the integers from 1 to 400 in words, one per line, with no other text.")}]
QUICKSTART = ["run", "--method", "crux", "--problems", "zm01,zm03,zm04"]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def decode_rate(engine, n: int, tokens: int, base_sample: int) -> tuple[float, int]:
    """Aggregate completion tokens/s of n samples decoded together (the prompt is
    cached by a warm-up, so this is decoding only)."""
    requests = [Request(messages=LONG_ANSWER, temperature=0.8, max_tokens=tokens, stop=[],
                        seed=sample_seed(0, base_sample + i), grammar=None) for i in range(n)]
    start = time.perf_counter()
    futures = [engine.submit(r) for r in requests]  # all queued before the first is decoded
    answers = [f.result() for f in futures]
    wall = time.perf_counter() - start
    produced = sum(a.completion_tokens for a in answers)
    return produced / wall, produced


def first_token(engine, salt: str) -> float:
    """Time to first token of a prompt no cache holds (~700 tokens)."""
    problem = (REPO / "tczoo" / "benchmarks" / "zoo_mini" / "problems").glob("*/statement.md")
    statement = "\n\n".join(p.read_text() for p in sorted(problem))[:2600]
    messages = [{"role": "system", "content": f"You write test cases. Run {salt}."},
                {"role": "user", "content": statement + "\n\nWrite one test case."}]
    answer = engine.submit(Request(messages=messages, temperature=0.0, max_tokens=1, stop=[],
                                   seed=0, grammar=None)).result()
    return answer.raw["first_token_s"], answer.prompt_tokens


def baseline_rate(path: Path, config: EngineConfig, tokens: int) -> float:
    from llama_cpp import Llama

    llm = Llama(model_path=str(path), n_ctx=4096, n_threads=config.n_threads, verbose=False, seed=0)
    llm.create_chat_completion(messages=LONG_ANSWER, max_tokens=4, temperature=0.8)  # warm
    start = time.perf_counter()
    out = llm.create_chat_completion(messages=LONG_ANSWER, max_tokens=tokens, temperature=0.8, seed=1)
    rate = out["usage"]["completion_tokens"] / (time.perf_counter() - start)
    llm.close()
    return rate


def quickstart(gguf: Path) -> float:
    root = Path(tempfile.mkdtemp(prefix="tczoo-quickstart-"))
    try:
        models = root / "cache" / "models"
        models.mkdir(parents=True)
        (models / EMBEDDED_FILE).symlink_to(gguf)
        stamp = gguf.with_suffix(".verified")
        shutil.copy(stamp, models / stamp.name)
        env = dict(os.environ, TCZOO_CACHE=str(root / "cache"))
        tczoo = Path(sys.executable).with_name("tczoo")
        cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run([str(tczoo), *QUICKSTART, "--out", str(root / "runs" / "quickstart")],
                              env=env, cwd=REPO, capture_output=True, text=True)
        wall = time.perf_counter() - start
        cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        print(f"quickstart CPU time: user {cpu.ru_utime - cpu_before.ru_utime:.0f} s, "
              f"system {cpu.ru_stime - cpu_before.ru_stime:.0f} s")
        print(proc.stdout[-3000:])
        if proc.returncode != 0:
            print(proc.stderr[-3000:])
            raise SystemExit(f"quickstart failed (exit {proc.returncode})")
        calls = [json.loads(line) for line in (root / "runs" / "quickstart" / "exchanges.jsonl").open()]
        prompt = sum(c["usage"]["prompt_tokens"] for c in calls)
        completion = [c["usage"]["completion_tokens"] for c in calls]
        print(f"LLM calls: {len(calls)}, {prompt} prompt + {sum(completion)} completion tokens "
              f"(per call: {completion})")
        return wall
    finally:
        shutil.rmtree(root, ignore_errors=True)


def assembly() -> float:
    root = Path(tempfile.mkdtemp(prefix="tczoo-assembly-"))
    try:
        env = dict(os.environ, TCZOO_CACHE=str(root))
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "from tczoo.llm.local import embedded_model_path as f; f()"],
                       env=env, check=True)
        return time.perf_counter() - start
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, default=128, help="completion tokens per sample")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--skip-quickstart", action="store_true")
    ap.add_argument("--skip-baseline", action="store_true")
    ap.add_argument("--assembly", action="store_true", help="also time the GGUF assembly")
    ap.add_argument("--model", default="qwen2.5-coder-1.5b", help="an embedded model: qwen2.5-coder-1.5b (the "
                    "default model) or qwen2.5-coder-0.5b; the quickstart always runs the default model")
    opts = ap.parse_args()

    gguf = embedded_model_path(opts.model)
    print(f"model: {opts.model}")
    config = EngineConfig.from_env()
    print(f"cores: {os.cpu_count()}; threads: {config.n_threads}; slots: {config.n_parallel}; decode: {config.decode}; "
          f"load average before: {load()}")
    engine = engine_for(gguf, config)
    print(f"reference kernels while decoding: {engine.reference.available}")
    decode_rate(engine, 1, 4, 10_000)  # evaluate and cache the prompt

    sizes = (1, 4, 8)
    rates: dict[int, list[float]] = {n: [] for n in sizes}
    for r in range(opts.rounds):
        for n in sizes:
            rate, _ = decode_rate(engine, n, opts.tokens, 1000 * (r + 1) + 100 * n)
            rates[n].append(rate)
    base = statistics.median(rates[1])
    print(f"\ndecoding, {opts.tokens} tokens per sample, median of {opts.rounds}:")
    print("| n | aggregate tok/s | per sequence tok/s | vs n=1 |\n|---|---|---|---|")
    for n in sizes:
        med = statistics.median(rates[n])
        print(f"| {n} | {med:.1f} | {med / n:.1f} | {med / base:.2f}x |")

    ttfts = [first_token(engine, f"{time.time()}-{i}") for i in range(opts.rounds)]
    print(f"\ntime to first token, fresh {ttfts[0][1]}-token prompt: "
          f"{statistics.median(t for t, _ in ttfts):.2f} s (median of {opts.rounds})")
    print(f"engine counters: {engine.stats}")
    engine.close()

    if not opts.skip_baseline:
        old = baseline_rate(gguf, config, opts.tokens)
        print(f"\nLlama.create_chat_completion, one sample at a time: {old:.1f} tok/s "
              f"(engine n=1: {base / old:.2f}x, n=8: {statistics.median(rates[8]) / old:.2f}x)")
    if opts.assembly:
        print(f"\nGGUF assembly into an empty cache: {assembly():.1f} s")
    if not opts.skip_quickstart:
        gguf = embedded_model_path()  # the README's job runs the default model
        print("\nquickstart from an empty cache (GGUF linked, not assembled):")
        wall = quickstart(gguf)
        print(f"quickstart wall time: {wall // 60:.0f} min {wall % 60:.0f} s")
    print(f"\nload average after: {load()}")


if __name__ == "__main__":
    main()
