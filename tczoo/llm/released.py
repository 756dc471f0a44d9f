"""Answers made elsewhere: ``released:PATH[+PATH...]``.

Authors release the generations behind their tables (CodeT: CodeGen-Mono-16B's 100
solutions and 100 test samples per HumanEval problem); other tools write samples of
their own. This backend answers a run's prompts from such files, so they go through
exactly the code a live model's answers take (the method's parsing, the runner's
scoring), offline and without a model.

A file is JSON lines, each a prompt and its samples, in CodeT's layout::

    {"prompt": "def f(x):\\n    \\"\\"\\"...\\"\\"\\"\\n", "samples": ["    return x\\n", ...]}

``prompt`` is either a string, matched against the text of the request's last user
message, or a list of ``{"role", "content"}`` messages, matched against the whole
conversation; both compare with surrounding whitespace ignored (templates trim their
blocks; CodeT's prompts end in a newline or in ``"assert "``). A record may carry a
``task_id`` (kept for messages; matching is by prompt, as CodeT's own script matches
its outputs to problems). Sample ``i`` of a request is ``samples[i]``. Several files
are one pool (CodeT: one file of solutions, one of tests); a prompt given twice with
different samples is refused, the same one twice is one record.

What cannot be answered fails the call, never silently: a prompt no file holds
(reason ``not_released``), a sample index past the record's samples (``no_sample``),
a second generation of a task (``--samples`` above 1: ``no_sample``). The sampling
parameters of the request are not checked (the files do not say theirs; a target
states them beside the numbers). Nothing is cached: the files are the source.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from tczoo.llm.interface import SAMPLE_STRIDE, Answer, Backend, ModelSpecError, ProviderError

MAX_SAMPLES = 100_000  # per record
MAX_FILE_MB = 1024


def _key_of(prompt: Any) -> str | None:
    if isinstance(prompt, str):
        return "text:" + prompt.strip()
    if isinstance(prompt, list) and prompt and all(
            isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str)
            for m in prompt):
        return "messages:" + "\x00".join(f"{m['role']}\x01{m['content'].strip()}" for m in prompt)
    return None


class ReleasedBackend(Backend):
    """Answers from released sample files (module docstring)."""

    cacheable = False

    def __init__(self, spec: str):
        from tczoo.safeio.userfiles import UserFileError, read_jsonl, where

        # "+" joins files: a model string's "," already separates models on the command line
        paths = [p.strip() for p in spec.split("+") if p.strip()]
        if not paths:
            raise ModelSpecError("released: name one or more sample files (released:PATH[+PATH...])")
        self.paths = [Path(os.path.expandvars(p)).expanduser() for p in paths]
        self.records: dict[str, list[str]] = {}
        self.task_ids: dict[str, str] = {}
        self.digests: list[str] = []
        for path in self.paths:
            if not path.is_file():
                raise ModelSpecError(f"released: sample file not found: {path}")
            if path.stat().st_size > MAX_FILE_MB << 20:
                raise ModelSpecError(f"released: {path} is over {MAX_FILE_MB} MB")
            sha = hashlib.sha256()
            count = 0
            try:
                for lineno, rec in read_jsonl(path, "released sample file"):
                    at = where(path, lineno)
                    if not isinstance(rec, dict):
                        raise ModelSpecError(f"{at}: a released record is a JSON object with \"prompt\" and "
                                             "\"samples\"")
                    key = _key_of(rec.get("prompt"))
                    if key is None:
                        raise ModelSpecError(f"{at}: \"prompt\" must be a string or a list of "
                                             "{\"role\", \"content\"} messages")
                    samples = rec.get("samples")
                    if not isinstance(samples, list) or not all(isinstance(s, str) for s in samples):
                        raise ModelSpecError(f"{at}: \"samples\" must be a list of strings")
                    if len(samples) > MAX_SAMPLES:
                        raise ModelSpecError(f"{at}: more than {MAX_SAMPLES} samples")
                    if key in self.records and self.records[key] != samples:
                        raise ModelSpecError(f"{at}: this prompt is already released with other samples")
                    self.records[key] = samples
                    if isinstance(rec.get("task_id"), str):
                        self.task_ids[key] = rec["task_id"]
                    sha.update(key.encode("utf-8", "surrogatepass"))
                    for s in samples:
                        sha.update(b"\x00" + s.encode("utf-8", "surrogatepass"))
                    count += 1
            except UserFileError as exc:
                raise ModelSpecError(str(exc)) from None
            if not count:
                raise ModelSpecError(f"released: {path} holds no record")
            self.digests.append(sha.hexdigest())

    @property
    def identity(self) -> dict[str, Any]:
        # the content, not the path: the same samples anywhere are the same answers
        return {"backend": "released", "files": [{"name": p.name, "sha256": d}
                                                   for p, d in zip(self.paths, self.digests)]}

    def lookup(self, messages: list[dict]) -> list[str] | None:
        users = [m for m in messages if m.get("role") == "user"]
        if users:
            found = self.records.get(_key_of(str(users[-1].get("content", ""))) or "")
            if found is not None:
                return found
        return self.records.get(_key_of([{"role": str(m.get("role", "")), "content": str(m.get("content", ""))}
                                         for m in messages]) or "")

    async def answer(self, messages, params, sample):
        samples = self.lookup(messages)
        if samples is None:
            raise ProviderError("released: no released record has this prompt", reason="not_released")
        generation, within = divmod(sample, SAMPLE_STRIDE)
        if generation:
            raise ProviderError(f"released: the files hold one generation per prompt (asked for generation "
                                f"{generation + 1})", reason="no_sample")
        if within >= len(samples):
            raise ProviderError(f"released: the record has {len(samples)} samples (asked for sample {within + 1})",
                                reason="no_sample")
        return Answer(text=samples[within])
