"""Per-sequence sampling for the embedded model: seeds, sampler chains, JSON grammars.

Every sequence owns its sampler chain, seeded from (the call's seed, the sample index)
alone, so what a sample draws never depends on which other sequences shared its batch.
The chain is llama-cpp-python's default for chat completions: a presence penalty over
the last 64 tokens (when one is asked), top-k 40, top-p (0.95 unless asked), min-p
0.05, temperature; temperature 0 is greedy.

A ``response_format`` (OpenAI's shape) becomes a GBNF grammar:

    {"type": "json_object"}                                   any JSON object or array
    {"type": "json_schema", "json_schema": {"schema": {...}}}  that schema

The answer may sit in a ```json fence (the templates show one) or stand bare; the
grammar ends the answer when the value (and its fence) is complete.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from tczoo.llm.interface import ProviderError

TOP_K = 40
TOP_P = 0.95
MIN_P = 0.05
PENALTY_LAST_N = 64  # llama-cpp-python's window for repeat/presence penalties

# The root rule wraps the value's own grammar (whose root is named ``root``).
_FENCED = 'answer ::= "```json\\n" root "\\n```" | "```\\n" root "\\n```" | root\n'
_ANY_JSON_SCHEMA = {"anyOf": [{"type": "object"}, {"type": "array"}]}


def sample_seed(seed: int, sample: int) -> int:
    """A 32-bit sampler seed from (seed, sample index); distinct pairs never share one
    by construction of the key (``seed*1000 + sample`` would: sample indices reach 1000s)."""
    digest = hashlib.sha256(f"tczoo-local:{seed}:{sample}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


def grammar_for(response_format: Any) -> str | None:
    """The GBNF grammar (root rule ``answer``) for a response_format, or None."""
    if response_format in (None, {}, "text"):
        return None
    if not isinstance(response_format, dict):
        raise ProviderError(f"response_format must be an object, got {response_format!r:.80}",
                            reason="bad_request")
    kind = response_format.get("type")
    if kind == "text":
        return None
    if kind == "json_object":
        schema: Any = _ANY_JSON_SCHEMA
    elif kind == "json_schema":
        spec = response_format.get("json_schema")
        schema = spec.get("schema") if isinstance(spec, dict) else None
        if not isinstance(schema, dict):
            raise ProviderError("response_format json_schema needs {'json_schema': {'schema': {...}}}",
                                reason="bad_request")
    else:
        raise ProviderError(f"unsupported response_format type {kind!r}", reason="bad_request")
    from tczoo.llm.local.native import prepare_openmp

    prepare_openmp()  # importing llama_cpp loads libgomp: its waiting policy first
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    try:
        value = json_schema_to_gbnf(json.dumps(schema))
    except Exception as exc:  # the converter raises bare Exceptions on schemas it cannot map
        raise ProviderError(f"response_format schema not supported: {exc}"[:300],
                            reason="bad_request") from exc
    return _FENCED + value


class SequenceSampler:
    """One sequence's sampler chain, and its grammar when the answer is constrained.

    With a grammar, the chain samples first and the grammar only vets the chosen token;
    the whole vocabulary goes through the grammar (slow: every token's text is matched)
    only when that token is refused. llama.cpp's own samplers do the same.
    """

    def __init__(self, llama_cpp, vocab, *, temperature: float, seed: int, grammar: str | None,
                 top_p: float = TOP_P, presence_penalty: float = 0.0):
        L = self.L = llama_cpp
        self.chain = L.llama_sampler_chain_init(L.llama_sampler_chain_default_params())
        self.grammar = None
        self.refused = 0  # tokens the grammar refused (each costs a full-vocabulary pass)
        if presence_penalty:
            L.llama_sampler_chain_add(self.chain, L.llama_sampler_init_penalties(
                L.llama_vocab_n_tokens(vocab), PENALTY_LAST_N, 1.0, 0.0, presence_penalty))
        if temperature <= 0:
            L.llama_sampler_chain_add(self.chain, L.llama_sampler_init_greedy())
        else:
            L.llama_sampler_chain_add(self.chain, L.llama_sampler_init_top_k(TOP_K))
            L.llama_sampler_chain_add(self.chain, L.llama_sampler_init_top_p(top_p, 1))
            L.llama_sampler_chain_add(self.chain, L.llama_sampler_init_min_p(MIN_P, 1))
            L.llama_sampler_chain_add(self.chain, L.llama_sampler_init_temp(temperature))
            L.llama_sampler_chain_add(self.chain, L.llama_sampler_init_dist(seed))
        if grammar is not None:
            self.grammar = L.llama_sampler_init_grammar(vocab, grammar.encode(), b"answer")
            if not self.grammar:
                self.close()
                raise ProviderError("the answer grammar does not parse", reason="bad_request")

    def sample(self, logits, candidates) -> int:
        L = self.L
        L.llama_sampler_apply(self.chain, candidates.load(logits))
        token = candidates.selected()
        if self.grammar is not None:
            L.llama_sampler_apply(self.grammar, candidates.single(token))
            if not candidates.single_allowed():
                self.refused += 1
                cur = candidates.load(logits)
                L.llama_sampler_apply(self.grammar, cur)
                L.llama_sampler_apply(self.chain, cur)
                token = candidates.selected()
            L.llama_sampler_accept(self.grammar, token)
        L.llama_sampler_accept(self.chain, token)
        return token

    def close(self) -> None:
        for smpl in (self.chain, self.grammar):
            if smpl:
                self.L.llama_sampler_free(smpl)
        self.chain = self.grammar = None
