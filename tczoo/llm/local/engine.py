"""The embedded model's decoding engine: continuous batching in one llama.cpp context.

One thread owns the model and its context. Requests (one sample of one prompt each)
queue up; between decoding steps the thread admits as many as it has free sequence
slots, and every step decodes one token of every running sequence in one
few ``llama_decode`` calls. Where decoding is bound by memory bandwidth (the weights
are read once per call, whatever the number of sequences) n samples of one prompt, or
the prompts of concurrent tasks, share that cost; where it is bound by arithmetic (a
CPU with few cores) batching gains little, and the other savings (prefix reuse,
grammar-ended answers) carry the speed-up.

The KV cache is split in ``n_parallel + n_prefixes`` streams (``kv_unified=False``),
one sequence id each. A prompt is evaluated once into a *prefix* stream; every sample
of it starts as a copy of that stream. Prefix streams stay cached (LRU), so a later
prompt that shares a leading part (the next step of a method on the same problem,
more samples of the same prompt) evaluates only what differs.

Reproducibility: a sample's text depends on its prompt, its parameters and its seed
only, never on what else shared its batch or what the prefix cache held:

- prompts are evaluated in chunks that start at multiples of ``PREFILL_CHUNK``
  (absolute positions), whether a cached prefix is reused or not, so the cached KV
  state is the one a fresh evaluation computes;
- the last prompt token is evaluated in the sample's first decoding step, so every
  sample's first logits come from a decoding step, like all its later ones;
- decoding steps run ggml's reference attention kernels (``native.ReferenceKernels``)
  and decode at most ``DECODE_GROUP`` sequences per ``llama_decode`` call: ggml picks
  attention and repacked-weight matrix kernels by batch shape, which would make a
  sequence's logits depend on the number of sequences beside it;
- each stream holds one sequence, so a sequence's cached tokens sit in position
  order whatever the others do.

The ``flat`` decoding mode loads the weights without llama.cpp's repacking, so every
row of every matrix product is one ``vec_dot`` whatever the number of rows beside it:
all running sequences decode in one call, and a sequence may feed several tokens in one
step. That is what speculation needs (``EngineConfig.speculate``): each step feeds a
sequence's next token and up to ``speculate`` guessed tokens after it (copied from an
earlier place in its prompt or answer where the last tokens occurred: prompt lookup),
and samples the rows in order with the sequence's own sampler, keeping a guess while it
equals what was sampled. Every token is drawn from the same logits with the same
sampler state as without speculation, so the answer is the same, token for token, at
any temperature; guesses only change how many tokens a step yields.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import ctypes
import itertools
import os
import queue
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tczoo.llm.interface import Answer, ModelSpecError, ProviderError
from tczoo.llm.local.native import Candidates, ReferenceKernels, llama_cpp_module
from tczoo.llm.local.sampling import SequenceSampler, grammar_for, sample_seed

PREFILL_CHUNK = 64  # prompt tokens per evaluation call; also the prefix-reuse granularity
MAX_SEQUENCES = 256  # llama.cpp's LLAMA_MAX_SEQ
# Sequences per llama_decode call while decoding. ggml's repacked Q4_K/Q4_0 weights use a
# matrix-vector kernel for up to 3 rows and a 4-row matrix kernel from 4 rows on, and
# the two round differently: with at most 3 rows per call every row gets the same
# kernel, so a sequence's logits do not depend on how many others share the step.
DECODE_GROUP = 3
# The matrix kernel's row block: a "wide" engine pads every decoding step to a multiple
# of it, so every row of every step goes through the matrix kernel.
MATRIX_ROWS = 4
DECODE_MODES = ("wide", "narrow", "flat")
# Prompt lookup (speculation) matches the last 1..NGRAM_MAX tokens against the sequence so far.
NGRAM_MAX = 4
MAX_SPECULATE = 16
# The loop guard (EngineConfig.loop_guard) looks for cycles up to this many tokens long.
LOOP_PERIOD = 16


@dataclass(frozen=True)
class EngineConfig:
    n_ctx: int = 8192  # tokens per sequence (prompt + answer)
    n_threads: int = 2
    n_parallel: int = 4  # sequences decoded together (issue 46: 4 + 3 prefixes keep the peak RSS under 3 GB)
    n_prefixes: int = 3  # evaluated prompts kept for reuse
    loop_guard: int = 256  # end an answer stuck repeating a short cycle this many tokens (0: never)
    # "narrow": at most DECODE_GROUP sequences per llama_decode call (matrix-vector
    # kernels); "wide": all running sequences in one call, padded to a multiple of
    # MATRIX_ROWS rows (matrix kernels). Narrow is the default: on the 2-core machine
    # this is developed on, decoding is bound by arithmetic and the matrix kernel costs
    # as much per row as the vector kernel (docs/local-model.md has the figures); wide
    # is for machines where memory bandwidth is the limit.
    decode: str = "narrow"
    # Guessed tokens fed after a sequence's next token in each step (prompt lookup; the
    # flat mode only: 0 elsewhere). They never change an answer, only the tokens per step.
    speculate: int = 0

    @classmethod
    def from_env(cls) -> "EngineConfig":
        def env_int(name: str, default: int, low: int) -> int:
            raw = os.environ.get(name)
            if raw is None or raw.strip() == "":
                return default
            try:
                value = int(raw)
            except ValueError:
                raise ModelSpecError(f"{name}={raw!r} is not an integer") from None
            if value < low:
                raise ModelSpecError(f"{name}={value} must be at least {low}")
            return value

        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        config = cls(
            n_ctx=env_int("TCZOO_LOCAL_CTX", cls.n_ctx, 256),
            n_threads=env_int("TCZOO_LOCAL_THREADS", cpus or 2, 1),
            n_parallel=env_int("TCZOO_LOCAL_PARALLEL", cls.n_parallel, 1),
            n_prefixes=env_int("TCZOO_LOCAL_PREFIXES", cls.n_prefixes, 1),
            loop_guard=env_int("TCZOO_LOCAL_LOOP_GUARD", cls.loop_guard, 0),
            decode=(os.environ.get("TCZOO_LOCAL_DECODE") or cls.decode).strip().lower(),
            speculate=env_int("TCZOO_LOCAL_SPECULATE", cls.speculate, 0),
        )
        if config.decode not in DECODE_MODES:
            raise ModelSpecError(f"TCZOO_LOCAL_DECODE={config.decode!r} must be one of {', '.join(DECODE_MODES)}")
        if config.speculate > MAX_SPECULATE:
            raise ModelSpecError(f"TCZOO_LOCAL_SPECULATE={config.speculate} must be at most {MAX_SPECULATE}")
        if config.n_parallel + config.n_prefixes + MATRIX_ROWS - 1 > MAX_SEQUENCES:
            raise ModelSpecError(
                f"TCZOO_LOCAL_PARALLEL + TCZOO_LOCAL_PREFIXES = {config.n_parallel + config.n_prefixes}"
                f" exceeds llama.cpp's {MAX_SEQUENCES - MATRIX_ROWS + 1} sequences")
        return config


@dataclass
class Request:
    messages: list[dict]
    temperature: float
    max_tokens: int
    stop: list[str]
    seed: int
    grammar: str | None
    top_p: float = 0.95
    presence_penalty: float = 0.0
    # Told the number of tokens each decoding step added to the answer (the engine's
    # thread calls it: keep it cheap), so progress counts tokens as they are decoded.
    on_tokens: Any = None
    future: concurrent.futures.Future = field(default_factory=concurrent.futures.Future)
    submitted: float = field(default_factory=time.perf_counter)


@dataclass
class _Prefix:
    stream: int
    tokens: np.ndarray
    used: int = 0


@dataclass
class _Slot:
    stream: int
    request: Request
    sampler: SequenceSampler
    n_prompt: int
    next_token: int
    pos: int
    out: bytearray = field(default_factory=bytearray)
    n_out: int = 0
    stop_from: int = 0  # where the stop-string search resumes in the decoded text
    first_token_s: float | None = None
    finish: str = "length"
    recent: list[int] = field(default_factory=list)  # the last LOOP_PERIOD + 1 tokens
    repeats: list[int] = field(default_factory=lambda: [0] * LOOP_PERIOD)  # per period p

    lookup: "_Lookup | None" = None  # prompt lookup over prompt + answer (speculation only)

    def stuck(self, token: int, guard: int) -> bool:
        """Whether the answer has repeated one cycle of at most LOOP_PERIOD tokens for
        ``guard`` tokens: repeats[p-1] counts the tokens in a row equal to the one p back."""
        recent = self.recent
        for p in range(1, LOOP_PERIOD + 1):
            same = len(recent) >= p and recent[-p] == token
            self.repeats[p - 1] = self.repeats[p - 1] + 1 if same else 0
        recent.append(token)
        if len(recent) > LOOP_PERIOD:
            del recent[0]
        return guard > 0 and max(self.repeats) >= guard


class _Lookup:
    """Prompt lookup: guesses for a sequence's next tokens, copied from where its last
    1..NGRAM_MAX tokens occurred before (in the prompt or the answer so far). For each
    n it keeps where each n-gram last ended, so appending a token costs NGRAM_MAX dict
    updates. A JSON answer repeats its own structure (``"}, {"input": "``), and a test's
    input often repeats a number or a row: those are the guesses that hold."""

    def __init__(self, tokens: list[int]):
        self.tokens: list[int] = []
        self.last: list[dict[tuple[int, ...], int]] = [{} for _ in range(NGRAM_MAX)]
        self.match: list[int] = [-1] * NGRAM_MAX  # per n: where the current suffix occurred before
        for token in tokens:
            self.append(token)

    def append(self, token: int) -> None:
        tokens = self.tokens
        tokens.append(token)
        end = len(tokens) - 1
        for n in range(1, min(NGRAM_MAX, len(tokens)) + 1):
            key = tuple(tokens[-n:])
            table = self.last[n - 1]
            self.match[n - 1] = table.get(key, -1)
            table[key] = end

    def guess(self, k: int) -> list[int]:
        """``k`` guessed tokens: what followed the latest earlier occurrence of the longest
        suffix that occurred before, repeating that stretch if it reaches the end (a loop);
        the last token again where nothing matches."""
        tokens = self.tokens
        end = len(tokens) - 1
        for n in range(min(NGRAM_MAX, len(tokens)), 0, -1):
            at = self.match[n - 1]
            if at >= 0:
                period = end - at
                return [tokens[at + 1 + i % period] for i in range(k)]
        return [tokens[-1]] * k if tokens else []


class Engine:
    """The model, its context and the decoding thread. Use ``submit``."""

    def __init__(self, path: Path, config: EngineConfig):
        self.times: dict[str, float] = {"created": time.time()}  # wall-clock stamps (benchmarks)
        L = self.L = llama_cpp_module()
        self.config = config
        self.path = path
        L.llama_backend_init()
        mparams = L.llama_model_default_params()
        # flat: no repacked weights, so every row of a matrix product is computed alike
        # whatever the rows beside it (the module's note)
        mparams.use_extra_bufts = config.decode != "flat"
        # Read the weights instead of mapping the file: repacked weights are copies, and
        # the mapped pages they were copied from would stay resident too (0.6 GiB of the
        # 1.5B counted twice in the peak RSS). The same weights, the same answers.
        if hasattr(mparams, "load_mode"):
            mparams.load_mode = L.LLAMA_LOAD_MODE_NONE
        elif hasattr(mparams, "use_mmap"):
            mparams.use_mmap = False
        from llama_cpp._utils import suppress_stdout_stderr

        with suppress_stdout_stderr(disable=False):  # the loader's notes bypass the logger
            self.model = L.llama_model_load_from_file(str(path).encode(), mparams)
        if not self.model:
            raise ProviderError(f"llama.cpp could not load {path}", reason="model_load")
        self.vocab = L.llama_model_get_vocab(self.model)
        self.n_vocab = L.llama_vocab_n_tokens(self.vocab)
        self.n_streams = config.n_parallel + config.n_prefixes
        # A wide engine's padding rows: one stream each (a stream must hold one token per
        # step for llama.cpp to keep the step in one micro-batch), emptied after each step.
        self.pad_streams = (list(range(self.n_streams, self.n_streams + MATRIX_ROWS - 1))
                            if config.decode == "wide" else [])
        n_seq = self.n_streams + len(self.pad_streams)
        cparams = L.llama_context_default_params()
        cparams.n_ctx = config.n_ctx * n_seq
        cparams.n_seq_max = n_seq
        cparams.kv_unified = False
        self.speculate = config.speculate if config.decode == "flat" else 0
        self.step_rows = config.n_parallel * (1 + self.speculate) + len(self.pad_streams)
        cparams.n_batch = cparams.n_ubatch = max(PREFILL_CHUNK, self.step_rows)
        cparams.n_threads = cparams.n_threads_batch = config.n_threads
        cparams.flash_attn_type = L.LLAMA_FLASH_ATTN_TYPE_ENABLED
        cparams.no_perf = True
        self.ctx = L.llama_init_from_model(self.model, cparams)
        if not self.ctx:
            L.llama_model_free(self.model)
            raise ProviderError("llama.cpp could not create a context (out of memory?)",
                                reason="model_load")
        self.n_ctx_seq = L.llama_n_ctx_seq(self.ctx)
        self.memory = L.llama_get_memory(self.ctx)
        self.reference = ReferenceKernels(L, self.ctx)
        self.batch = L.llama_batch_init(cparams.n_batch, 0, 1)
        self.batch_capacity = cparams.n_batch
        self.candidates = Candidates(L, self.n_vocab)
        self.chat = _chat_formatter(L, self.model, self.vocab)
        self.piece_buf = ctypes.create_string_buffer(256)

        # Running sequences take the lowest free stream of their own range, prefixes the
        # rest: llama.cpp keeps sequences with consecutive stream ids in one micro-batch
        # (a split KV cache splits a batch wherever the ids jump), so the running ones sit
        # side by side and a step is one pass over the weights.
        self.free_slot_streams = list(range(config.n_parallel))
        self.free_prefix_streams = list(range(config.n_parallel, self.n_streams))
        self.prefixes: list[_Prefix] = []
        self.slots: list[_Slot] = []
        self.waiting: list[Request] = []
        self.inbox: queue.SimpleQueue[Request | None] = queue.SimpleQueue()
        self._clock = itertools.count(1)
        self._closed = False
        # When the thread last got something done (a decoding step, a prompt chunk): a
        # caller's timeout counts time without progress, not time (LocalBackend).
        self.progressed = time.monotonic()
        # Counters for benchmarks and tests: what was evaluated, what was reused.
        self.stats = {"prompt_evaluated": 0, "prompt_reused": 0, "steps": 0, "decoded": 0,
                      "grammar_refused": 0, "loops_cut": 0, "rows": 0, "drafted": 0, "accepted": 0,
                      "decode_s": 0.0, "sample_s": 0.0, "prefill_s": 0.0}
        self.times["loaded"] = time.time()
        self.thread = threading.Thread(target=self._run, name="tczoo-llama", daemon=True)
        self.thread.start()

    # ------------------------------------------------------------------ public

    def submit(self, request: Request) -> concurrent.futures.Future:
        if self._closed:
            raise ProviderError("the local model engine is shut down", reason="backend_closed")
        self.times.setdefault("first_request", time.time())
        self.inbox.put(request)
        return request.future

    def close(self) -> None:
        """Stop the thread (running requests fail) and free the model."""
        if self._closed:
            return
        self._closed = True
        self.inbox.put(None)
        self.thread.join(timeout=60)
        self.times["closed"] = time.time()
        _dump_stats(self)
        if self.thread.is_alive():
            return  # stuck in a decode call; freeing now would crash it
        L = self.L
        L.llama_batch_free(self.batch)
        L.llama_free(self.ctx)
        L.llama_model_free(self.model)

    # ------------------------------------------------------------------ thread

    def _run(self) -> None:
        while True:
            try:
                if not self._collect(block=not self.slots and not self.waiting):
                    break
                self._admit()
                if self.slots:
                    self._step()
            except Exception as exc:  # never leave a caller waiting on a dead thread
                self._fail_all(exc)
        self._fail_all(ProviderError("the local model engine shut down", reason="backend_closed"))

    def _collect(self, block: bool) -> bool:
        """Move queued requests to ``waiting``; False once ``close`` was called."""
        try:
            item = self.inbox.get(block=block)
            while True:
                if item is None:
                    return False
                self.waiting.append(item)
                item = self.inbox.get_nowait()
        except queue.Empty:
            return True

    def _admit(self) -> None:
        while self.waiting and len(self.slots) < self.config.n_parallel:
            request = self.waiting.pop(0)
            if request.future.cancelled():
                continue
            try:
                self._start(request)
            except ProviderError as exc:
                _settle(request.future, exc)

    def _start(self, request: Request) -> None:
        L = self.L
        tokens = self._prompt_tokens(request.messages)
        if len(tokens) + 1 > self.n_ctx_seq:
            raise ProviderError(
                f"prompt of {len(tokens)} tokens does not fit the local context of "
                f"{self.n_ctx_seq} tokens per sequence (TCZOO_LOCAL_CTX)",
                reason="context_window",
            )
        sampler = SequenceSampler(L, self.vocab, temperature=request.temperature, seed=request.seed,
                                  grammar=request.grammar, top_p=request.top_p,
                                  presence_penalty=request.presence_penalty)
        try:
            prefix = self._prefix_for(tokens[:-1])
            # _admit keeps len(slots) < n_parallel. The lowest free stream keeps the running
            # sequences side by side (one micro-batch: __init__); a wide engine takes the
            # highest, as it always did, so its answers stay what they were (its steps never
            # reach one micro-batch of 4+ real rows: docs/local-model.md, decoding modes)
            stream = (max if self.pad_streams else min)(self.free_slot_streams)
            self.free_slot_streams.remove(stream)
        except BaseException:
            sampler.close()
            raise
        L.llama_memory_seq_rm(self.memory, stream, -1, -1)
        if len(prefix.tokens):
            L.llama_memory_seq_cp(self.memory, prefix.stream, stream, -1, -1)
        self.slots.append(_Slot(stream=stream, request=request, sampler=sampler,
                                n_prompt=len(tokens), next_token=int(tokens[-1]),
                                pos=len(tokens) - 1,
                                lookup=_Lookup(tokens.tolist()) if self.speculate else None))

    def _step(self) -> None:
        """One token for every running sequence: in one call padded to a multiple of
        ``MATRIX_ROWS`` (wide), or in calls of at most ``DECODE_GROUP`` (narrow)."""
        for slot in [s for s in self.slots if s.request.future.cancelled()]:
            self._release(slot)
        if not self.slots:
            return
        if not self.pad_streams:
            self.slots.sort(key=lambda s: s.stream)  # ascending consecutive stream ids: one micro-batch
        done = []
        self.reference.set(True)
        try:
            if self.config.decode == "flat":
                done = self._decode_flat(self.slots)
            elif self.pad_streams:
                done = self._decode_group(self.slots, pad=-len(self.slots) % MATRIX_ROWS)
            else:
                for first in range(0, len(self.slots), DECODE_GROUP):
                    done += self._decode_group(self.slots[first:first + DECODE_GROUP])
        finally:
            self.reference.set(False)
        self.stats["steps"] += 1
        self.progressed = time.monotonic()
        for slot in done:
            self._finish(slot)

    def _decode_group(self, group: list[_Slot], pad: int = 0) -> list[_Slot]:
        """Decode one token of each slot in ``group`` (plus ``pad`` throwaway rows in the
        padding streams); the slots that are done."""
        L, batch = self.L, self.batch
        batch.n_tokens = len(group) + pad
        for i, slot in enumerate(group):
            batch.token[i] = slot.next_token
            batch.pos[i] = slot.pos
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = slot.stream
            batch.logits[i] = 1
        for i, stream in enumerate(self.pad_streams[:pad], start=len(group)):
            batch.token[i] = group[0].next_token
            batch.pos[i] = 0
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = stream
            batch.logits[i] = 0
        self._llama_decode(batch)
        for stream in self.pad_streams[:pad]:
            L.llama_memory_seq_rm(self.memory, stream, -1, -1)
        self.stats["decoded"] += len(group)
        done = []
        for i, slot in enumerate(group):
            before = slot.n_out
            if self._emit(slot, self._sample(slot, i)):
                done.append(slot)
            self._told(slot, before)
        return done

    def _decode_flat(self, slots: list[_Slot]) -> list[_Slot]:
        """One step of the flat mode: every sequence feeds its next token and, when
        speculating, as many guessed tokens after it (the same number for every
        sequence, so that llama.cpp keeps the step in one micro-batch); each sequence then
        samples its rows in order, keeping guesses while they equal what it sampled."""
        L, batch = self.L, self.batch
        done: list[_Slot] = []
        per_call = max(1, self.batch_capacity // (1 + self.speculate))
        for first in range(0, len(slots), per_call):
            group = slots[first:first + per_call]
            plan = []
            row = 0
            for slot in group:
                room = self.n_ctx_seq - slot.pos - 2  # positions left for guesses
                guesses = slot.lookup.guess(min(self.speculate, room)) if slot.lookup and room > 0 else []
                for j, token in enumerate([slot.next_token] + guesses):
                    batch.token[row + j] = token
                    batch.pos[row + j] = slot.pos + j
                    batch.n_seq_id[row + j] = 1
                    batch.seq_id[row + j][0] = slot.stream
                    batch.logits[row + j] = 1
                plan.append((slot, guesses, row))
                row += 1 + len(guesses)
            batch.n_tokens = row
            self._llama_decode(batch)
            self.stats["rows"] += row
            for slot, guesses, row in plan:
                before = slot.n_out
                if self._verify(slot, guesses, row):
                    done.append(slot)
                self._told(slot, before)
        return done

    def _verify(self, slot: _Slot, guesses: list[int], row: int) -> bool:
        """Sample the slot's rows from ``row`` on, in order, while each sampled token
        equals the guess fed after it; drop the cache entries of the guesses that did not
        hold. True when the answer is done."""
        self.stats["drafted"] += len(guesses)
        for j in range(len(guesses) + 1):
            token = self._sample(slot, row + j)
            self.stats["decoded"] += 1
            if self._emit(slot, token):
                return True
            if j == len(guesses) or token != guesses[j]:
                break
            self.stats["accepted"] += 1
        if guesses:
            # the cache holds the fed tokens up to the last one whose successor was
            # sampled; the guesses after it (and their positions) go
            self.L.llama_memory_seq_rm(self.memory, slot.stream, slot.pos, -1)
        return False

    def _sample(self, slot: _Slot, row: int) -> int:
        start = time.perf_counter()
        logits = np.ctypeslib.as_array(self.L.llama_get_logits_ith(self.ctx, row), shape=(self.n_vocab,))
        token = slot.sampler.sample(logits, self.candidates)
        self.stats["sample_s"] += time.perf_counter() - start
        return token

    def _emit(self, slot: _Slot, token: int) -> bool:
        """Add a sampled token to the slot's answer (it becomes the next token fed); True
        when the answer is done (end of generation, a stop string, a loop, the limit)."""
        slot.pos += 1
        if slot.first_token_s is None:
            slot.first_token_s = time.perf_counter() - slot.request.submitted
        if self.L.llama_vocab_is_eog(self.vocab, token):
            slot.finish = "stop"
            return True
        slot.out += self._piece(token)
        slot.n_out += 1
        slot.next_token = token
        if slot.lookup is not None:
            slot.lookup.append(token)
        if self._hit_stop(slot):
            slot.finish = "stop"
            return True
        if slot.stuck(token, self.config.loop_guard):
            slot.finish = "loop"
            self.stats["loops_cut"] += 1
            return True
        return slot.n_out >= slot.request.max_tokens or slot.pos + 1 >= self.n_ctx_seq

    def _llama_decode(self, batch) -> None:
        start = time.perf_counter()
        rc = self.L.llama_decode(self.ctx, batch)
        self.stats["decode_s"] += time.perf_counter() - start
        if rc != 0:
            raise ProviderError(f"llama_decode failed ({rc})", reason="decode_failed")

    @staticmethod
    def _told(slot: _Slot, before: int) -> None:
        """Tell the request's ``on_tokens`` what this step added (never fails the step)."""
        added = slot.n_out - before
        if added and slot.request.on_tokens is not None:
            try:
                slot.request.on_tokens(added)
            except Exception:  # a progress display's bug must not fail the answer
                slot.request.on_tokens = None

    # ------------------------------------------------------------------ prompts

    def _prompt_tokens(self, messages: list[dict]) -> np.ndarray:
        try:
            text = self.chat(messages=messages).prompt
        except Exception as exc:  # the GGUF's Jinja template refusing these messages
            raise ProviderError(f"chat template failed: {exc}"[:300], reason="bad_request") from exc
        raw = text.encode("utf-8", errors="surrogatepass").decode("utf-8", errors="replace").encode()
        n_max = len(raw) + 16
        buf = (self.L.llama_token * n_max)()
        n = self.L.llama_tokenize(self.vocab, raw, len(raw), buf, n_max, False, True)
        if n < 0:
            raise ProviderError("prompt could not be tokenized", reason="bad_request")
        if n == 0:
            raise ProviderError("empty prompt", reason="bad_request")
        return np.frombuffer(buf, dtype=np.int32, count=n).copy()

    def _prefix_for(self, tokens: np.ndarray) -> _Prefix:
        """A prefix stream holding exactly ``tokens``: cached, extended from the longest
        cached match (at a chunk boundary), or evaluated from scratch."""
        best, common = None, 0
        for prefix in self.prefixes:
            c = _common_length(prefix.tokens, tokens)
            if c == len(prefix.tokens) == len(tokens):
                prefix.used = next(self._clock)
                self.stats["prompt_reused"] += len(tokens)
                return prefix
            if c > common:
                best, common = prefix, c
        reuse = (common // PREFILL_CHUNK) * PREFILL_CHUNK if best is not None else 0
        if reuse and not self.free_prefix_streams and all(p is best for p in self.prefixes):
            reuse = 0  # one prefix stream (TCZOO_LOCAL_PREFIXES=1): it is overwritten, not copied
        stream = self._take_stream(keep=best if reuse else None)
        L = self.L
        L.llama_memory_seq_rm(self.memory, stream, -1, -1)
        if reuse:
            L.llama_memory_seq_cp(self.memory, best.stream, stream, -1, -1)
            L.llama_memory_seq_rm(self.memory, stream, reuse, -1)
        prefix = _Prefix(stream=stream, tokens=tokens, used=next(self._clock))
        try:
            self._evaluate(stream, tokens, reuse)
        except BaseException:
            L.llama_memory_seq_rm(self.memory, stream, -1, -1)
            self.free_prefix_streams.append(stream)
            raise
        self.prefixes.append(prefix)
        self.stats["prompt_reused"] += reuse
        self.stats["prompt_evaluated"] += len(tokens) - reuse
        return prefix

    def _evaluate(self, stream: int, tokens: np.ndarray, start: int) -> None:
        L, batch = self.L, self.batch
        pos = start
        while pos < len(tokens):
            end = min((pos // PREFILL_CHUNK + 1) * PREFILL_CHUNK, len(tokens))
            batch.n_tokens = end - pos
            for i, p in enumerate(range(pos, end)):
                batch.token[i] = int(tokens[p])
                batch.pos[i] = p
                batch.n_seq_id[i] = 1
                batch.seq_id[i][0] = stream
                batch.logits[i] = 0
            start = time.perf_counter()
            rc = L.llama_decode(self.ctx, batch)
            self.stats["prefill_s"] += time.perf_counter() - start
            if rc != 0:
                raise ProviderError(f"llama_decode failed on the prompt ({rc})", reason="decode_failed")
            self.progressed = time.monotonic()
            pos = end

    def _take_stream(self, keep: _Prefix | None) -> int:
        """A free prefix stream; else the least recently used prefix other than ``keep``
        gives up its stream."""
        if self.free_prefix_streams:
            return self.free_prefix_streams.pop()
        victims = [p for p in self.prefixes if p is not keep]
        if not victims:
            raise ProviderError("no free sequence in the local context", reason="engine_full")
        victim = min(victims, key=lambda p: p.used)
        self.prefixes.remove(victim)
        return victim.stream

    # ------------------------------------------------------------------ answers

    def _piece(self, token: int) -> bytes:
        n = self.L.llama_token_to_piece(self.vocab, token, self.piece_buf, len(self.piece_buf), 0, False)
        if n < 0:
            buf = ctypes.create_string_buffer(-n)
            n = self.L.llama_token_to_piece(self.vocab, token, buf, len(buf), 0, False)
            return buf.raw[:n]
        return self.piece_buf.raw[:n]

    def _hit_stop(self, slot: _Slot) -> bool:
        stops = slot.request.stop
        if not stops:
            return False
        text = slot.out.decode("utf-8", errors="ignore")
        hit = [i for i in (text.find(s, slot.stop_from) for s in stops) if i >= 0]
        slot.stop_from = max(0, len(text) - max(len(s) for s in stops))
        return bool(hit)

    def _finish(self, slot: _Slot) -> None:
        text = slot.out.decode("utf-8", errors="replace")
        if slot.request.stop:
            cuts = [i for i in (text.find(s) for s in slot.request.stop) if i >= 0]
            if cuts:
                text = text[: min(cuts)]
        answer = Answer(
            text=text,
            prompt_tokens=slot.n_prompt,
            completion_tokens=slot.n_out,
            raw={"finish_reason": slot.finish, "first_token_s": slot.first_token_s,
                 "total_s": time.perf_counter() - slot.request.submitted},
        )
        self._release(slot)
        self.times["last_answer"] = time.time()
        _settle(slot.request.future, answer)

    def _release(self, slot: _Slot) -> None:
        self.slots.remove(slot)
        self.stats["grammar_refused"] += slot.sampler.refused
        slot.sampler.close()
        self.L.llama_memory_seq_rm(self.memory, slot.stream, -1, -1)
        self.free_slot_streams.append(slot.stream)

    def _fail_all(self, exc: Exception) -> None:
        err = exc if isinstance(exc, ProviderError) else ProviderError(
            f"local model engine error: {type(exc).__name__}: {exc}"[:500], reason="backend_crash")
        for slot in list(self.slots):
            self._release(slot)
            _settle(slot.request.future, err)
        for request in self.waiting:
            _settle(request.future, err)
        self.waiting.clear()


def _dump_stats(engine: Engine) -> None:
    """With ``TCZOO_LOCAL_STATS=FILE``, append the engine's counters and time stamps to FILE
    as one JSON line when it closes (bench/bench_quickstart.py reads them to split a run's
    time into prefill, decoding, sampling and the rest)."""
    target = os.environ.get("TCZOO_LOCAL_STATS")
    if not target:
        return
    import json
    import resource

    line = json.dumps({"maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "model": str(engine.path), "config": {k: getattr(engine.config, k) for k in
                                                             engine.config.__dataclass_fields__},
                       "stats": engine.stats, "times": engine.times, "pid": os.getpid()})
    try:
        with open(target, "a") as fh:
            fh.write(line + "\n")
    except OSError:
        pass  # a benchmark's file, never a reason to fail a run


def _settle(future: concurrent.futures.Future, outcome: Any) -> None:
    if not future.set_running_or_notify_cancel():
        return  # the caller gave up (timeout): nobody reads this answer
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)


def _common_length(a: np.ndarray, b: np.ndarray) -> int:
    n = min(len(a), len(b))
    diff = np.flatnonzero(a[:n] != b[:n])
    return int(diff[0]) if len(diff) else n


def _chat_formatter(L, model, vocab):
    """The GGUF's own chat template (as llama-cpp-python's ``Llama`` uses it)."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    buf = ctypes.create_string_buffer(1 << 16)
    n = L.llama_model_meta_val_str(model, b"tokenizer.chat_template", buf, len(buf))
    if n < 0:
        raise ProviderError("the GGUF has no chat template", reason="model_load")
    if n >= len(buf):
        buf = ctypes.create_string_buffer(n + 1)
        L.llama_model_meta_val_str(model, b"tokenizer.chat_template", buf, len(buf))
    template = buf.value.decode("utf-8", errors="replace")

    def token_text(token: int) -> str:
        if token < 0:
            return ""
        return (L.llama_vocab_get_text(vocab, token) or b"").decode("utf-8", errors="replace")

    return Jinja2ChatFormatter(
        template=template,
        eos_token=token_text(L.llama_vocab_eos(vocab)),
        bos_token=token_text(L.llama_vocab_bos(vocab)),
    )


_ENGINES: dict[tuple[str, EngineConfig], Engine] = {}
_ENGINES_LOCK = threading.Lock()


def engine_for(path: Path, config: EngineConfig) -> Engine:
    """One engine per (GGUF, configuration) per process, started on first use."""
    key = (str(path), config)
    with _ENGINES_LOCK:
        if key not in _ENGINES:
            _ENGINES[key] = Engine(path, config)
        return _ENGINES[key]


@atexit.register
def _close_engines() -> None:
    # A daemon thread still inside llama_decode while the interpreter tears down can
    # crash the exit; stop the threads first.
    with _ENGINES_LOCK:
        for engine in _ENGINES.values():
            engine.close()
        _ENGINES.clear()
