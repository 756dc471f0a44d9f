"""Where answers come from. The client picks one backend per model string.

    scripted:PATH           rules in a JSONL file (tests, demos)
    replay:RUN_DIR          the exchanges a recorded run made (offline re-scoring)
    released:PATH[+PATH]    samples made elsewhere, {"prompt", "samples"} per line (``tczoo.llm.released``)
    local/NAME | local/PATH the embedded llama.cpp model (see ``tczoo.llm.local``)
    anything else           LiteLLM (``openai/gpt-4o``, ``hosted_vllm/...`` with api_base, ...)

A backend answers one sample of one prompt; retries, caching, concurrency and
accounting live in the client so every backend gets them alike.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path
from typing import Any

from tczoo.llm.interface import (  # noqa: F401 - re-exported: the names every backend user imports from here
    SAMPLE_STRIDE,
    Answer,
    Backend,
    ModelSpecError,
    ProviderError,
    render_prompt,
)


# --------------------------------------------------------------------------- scripted


class ScriptedBackend(Backend):
    """Answers from rules ``{"match": REGEX, "response": TEXT}`` (or ``"responses": [...]``).

    ``match`` is searched in the rendered prompt; the first matching rule answers. With
    ``responses`` the sample index picks the answer (cycling), so a rule can script the
    n different samples a method asks for; generation g of a task starts g answers
    further along the list. An optional ``"delay"`` (seconds) simulates
    a slow provider. No matching rule is a recorded failure.
    """

    cacheable = False  # the file is the source of truth; editing it must take effect

    @property
    def identity(self) -> dict[str, Any]:
        return {"backend": "scripted", "path": str(self.path)}

    MAX_DELAY_S = 3600.0

    def __init__(self, path: str):
        from tczoo.safeio.userfiles import UserFileError, expect, number, read_jsonl, where

        self.path = Path(path).expanduser()
        if not self.path.exists():
            raise ModelSpecError(f"scripted model file not found: {self.path}")
        self.rules: list[tuple[re.Pattern, list[str], float]] = []
        try:
            for lineno, rule in read_jsonl(self.path, "scripted model file"):
                at = where(self.path, lineno)
                expect(rule, dict, "a scripted rule", self.path, lineno)
                if "responses" not in rule and "response" not in rule:
                    raise ModelSpecError(f"{at}: bad scripted rule: it needs \"response\" or \"responses\"")
                answers = rule["responses"] if "responses" in rule else [rule["response"]]
                expect(answers, list, "responses", self.path, lineno)
                if not answers or not all(isinstance(a, str) for a in answers):
                    raise ModelSpecError(f"{at}: responses must be strings")
                match = expect(rule.get("match", ""), str, "match", self.path, lineno)
                try:
                    pattern = re.compile(match, re.S)
                except (re.error, RecursionError, OverflowError) as exc:
                    raise ModelSpecError(f"{at}: bad scripted rule: match is not a regular expression "
                                         f"({str(exc)[:120]})") from None
                delay = number(rule.get("delay", 0), "delay", self.path, lineno, low=0, high=self.MAX_DELAY_S)
                self.rules.append((pattern, answers, float(delay)))
        except UserFileError as exc:
            raise ModelSpecError(str(exc)) from None

    async def answer(self, messages, params, sample):
        prompt = render_prompt(messages)
        for pattern, answers, delay in self.rules:
            if pattern.search(prompt):
                if delay:
                    await asyncio.sleep(delay)
                generation, within = divmod(sample, SAMPLE_STRIDE)
                return Answer(text=answers[(generation + within) % len(answers)])
        raise ProviderError(
            f"no scripted rule matches the prompt (starts {prompt[:80]!r})", reason="no_rule"
        )


# --------------------------------------------------------------------------- replay


def replay_key(messages: list[dict], params: dict[str, Any], sample: int) -> str:
    """The model is left out (replay answers for whatever model recorded the run), and so
    are the timeout, which the client adds per call and never records, and the
    response format, which only backends that enforce it record."""
    from tczoo.llm.cache import exchange_key

    kept = {k: v for k, v in params.items() if k not in ("timeout", "response_format")}
    return exchange_key({}, messages, kept, sample)


class ReplayBackend(Backend):
    """Answers from a run directory's ``exchanges.jsonl`` (or every run of a comparison
    directory), whatever model made them. A call the recording does not hold fails with
    what differs from the closest recorded one (``differs``): a sampling setting (and
    the flag that sets it), the sample index, or the prompt (from which line)."""

    cacheable = False

    @property
    def identity(self) -> dict[str, Any]:
        return {"backend": "replay", "run": str(self.run_dir)}

    def __init__(self, run_dir: str):
        from tczoo.store import RunStore

        self.run_dir = Path(run_dir).expanduser()
        path = self.run_dir / "exchanges.jsonl"
        # a comparison directory (tczoo compare / reproduce) replays all its cells' runs;
        # a cell that is a link (someone else's folder) is not one of them
        folders = [self.run_dir] if path.exists() else sorted(
            p.parent for p in self.run_dir.glob("*/*/exchanges.jsonl")
            if not p.parent.is_symlink() and not p.parent.parent.is_symlink())
        if not folders or not (path.exists() or (self.run_dir / "grid.json").is_file()):
            raise ModelSpecError(f"replay: {path} not found (is {run_dir} a tczoo run or comparison directory?)")
        self.answers: dict[str, dict] = {}
        for folder in folders:
            # the run directory's reader: regular files only, bounded records, a torn
            # last line skipped, a damaged one named FILE:LINE
            store = RunStore(folder)
            for lineno, rec in store.records("exchanges.jsonl"):
                if not isinstance(rec, dict) or not rec.get("ok"):
                    continue
                messages, params, sample, text = (rec.get("messages"), rec.get("params"), rec.get("sample"),
                                                  rec.get("text"))
                if not (isinstance(messages, list) and isinstance(params, dict) and isinstance(sample, int)
                        and not isinstance(sample, bool) and isinstance(text, str)):
                    raise ModelSpecError(f"{folder / 'exchanges.jsonl'}:{lineno}: not a recorded exchange "
                                         "(needs messages, params, sample and text)")
                usage = rec.get("usage")
                rec["usage"] = {k: v for k, v in usage.items() if isinstance(v, int) and not isinstance(v, bool)} \
                    if isinstance(usage, dict) else {}
                self.answers[replay_key(messages, params, sample)] = rec

    async def answer(self, messages, params, sample):
        rec = self.answers.get(replay_key(messages, params, sample))
        if rec is None:
            raise ProviderError(f"replay: this exchange was not recorded: {self.differs(messages, params, sample)}",
                                reason="not_recorded")
        usage = rec.get("usage", {})
        return Answer(
            text=rec["text"],
            prompt_tokens=usage.get("prompt_tokens", 0),
            completion_tokens=usage.get("completion_tokens", 0),
        )


    def differs(self, messages: list[dict], params: dict[str, Any], sample: int) -> str:
        """What makes this call differ from the recording, in one clause."""
        asked = {k: v for k, v in params.items() if k not in ("timeout", "response_format", "on_tokens")}
        prompt = _messages_text(messages)
        if getattr(self, "_texts", None) is None:  # built at the first miss, once
            self._texts = [(_messages_text(r["messages"]), r) for r in self.answers.values()]
        same_prompt = [r for text, r in self._texts if text == prompt]
        if same_prompt:
            for rec in sorted(same_prompt, key=lambda r: r["sample"] != sample):
                recorded = {k: v for k, v in rec["params"].items() if k not in ("timeout", "response_format")}
                changed = [k for k in sorted(set(asked) | set(recorded)) if asked.get(k) != recorded.get(k)]
                if changed:
                    return "; ".join(f"{k}: recorded {recorded.get(k)!r}, this run asks {asked.get(k)!r}"
                                     f"{SETTING_FLAGS.get(k, '')}" for k in changed)
            samples = sorted({r["sample"] for r in same_prompt})
            return (f"sample {sample} of this prompt was not recorded (recorded: {', '.join(map(str, samples[:8]))}"
                    f"{' ...' if len(samples) > 8 else ''}): --samples or --repeats differs from the recording's")
        if not self.answers:
            return "the recording holds no answered exchange"
        # the prompt itself differs: from which line, against the recorded prompt closest to it
        lines = prompt.splitlines()
        best, at = "", -1
        for text, _ in self._texts:
            other = text.splitlines()
            k = next((i for i, (x, y) in enumerate(zip(lines, other)) if x != y), min(len(lines), len(other)))
            if k > at:
                best, at = "\n".join(other), k
        recorded = best.splitlines()
        was = recorded[at] if at < len(recorded) else "(the recorded prompt ends)"
        now = lines[at] if at < len(lines) else "(this prompt ends)"
        return (f"no recorded exchange has this prompt: it differs from the closest recorded one at line {at + 1} "
                f"(recorded {was[:80]!r}, now {now[:80]!r}): a template, a problem or a method parameter is not "
                "the recording's")


# what sets a sampling parameter, for a replay that asks for another value than was recorded
SETTING_FLAGS = {"max_tokens": " (--max-tokens, or the method's max_tokens in --params)",
                 "temperature": " (--temperature, or the method's temperature in --params)",
                 "top_p": " (the method's top_p in --params)", "seed": " (--seed)",
                 "presence_penalty": " (the method's presence_penalty in --params)", "stop": " (the method's stop)"}


def _messages_text(messages: Any) -> str:
    if not isinstance(messages, list):
        return str(messages)
    return "\n".join(f"{m.get('role', '')}: {m.get('content', '')}" if isinstance(m, dict) else str(m)
                     for m in messages)


# --------------------------------------------------------------------------- one answer


def prompt_digest(messages: list[dict]) -> str:
    """A stable fingerprint of a prompt (the messages' roles and contents)."""
    import hashlib

    body = json.dumps([[m.get("role", ""), m.get("content", "")] for m in messages], ensure_ascii=False)
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()


class OneAnswerBackend(Backend):
    """Answers the first call with ``text`` and refuses every later one (reason
    ``not_single_turn``): a method run on a completion an RL trainer sampled elsewhere
    (``tczoo.rewards``). With ``prompt`` (a ``prompt_digest``), the first call must ask
    exactly that prompt, else it is refused (reason ``prompt_mismatch``): the
    completion answered another prompt. ``calls`` counts every call asked."""

    cacheable = False

    def __init__(self, text: str, prompt: str | None = None):
        self.text = text
        self.prompt = prompt
        self.calls = 0
        self.asked: str | None = None  # digest of the first prompt asked

    @property
    def identity(self) -> dict[str, Any]:
        return {"backend": "one-answer"}

    async def answer(self, messages, params, sample):
        self.calls += 1
        if self.calls > 1:
            raise ProviderError("the method asked the model a second time; a completion answers one call",
                                reason="not_single_turn")
        self.asked = prompt_digest(messages)
        if self.prompt is not None and self.asked != self.prompt:
            raise ProviderError("the method rendered another prompt than the one the completion answered",
                                reason="prompt_mismatch")
        return Answer(text=self.text)


class PromptCapture(Backend):
    """Records the prompts a method asks and answers none of them (reason ``captured``):
    how ``tczoo rl export`` renders a method's prompt through the method itself."""

    cacheable = False

    def __init__(self):
        self.prompts: list[list[dict]] = []

    @property
    def identity(self) -> dict[str, Any]:
        return {"backend": "prompt-capture"}

    async def answer(self, messages, params, sample):
        self.prompts.append(messages)
        raise ProviderError("prompt captured, not answered", reason="captured")


# --------------------------------------------------------------------------- litellm


def _litellm():
    # LiteLLM's import takes seconds and would fetch a price map from the network.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    litellm.drop_params = True  # providers that lack a param (seed ...) ignore it
    return litellm


class LiteLLMBackend(Backend):
    def __init__(self, model: str, api_base: str | None = None, api_key: str | None = None):
        self.model = model
        self.api_base = api_base
        self.api_key = api_key
        self._supported: set[str] | None = None  # what LiteLLM says the model takes (empty: unknown)

    def unsupported(self, names: list[str]) -> list[str]:
        if self._supported is None:
            litellm = _litellm()
            try:
                model, provider, _, _ = litellm.get_llm_provider(self.model, api_base=self.api_base)
                self._supported = set(litellm.get_supported_openai_params(model=model, custom_llm_provider=provider)
                                      or ())
            except Exception:  # a provider LiteLLM cannot describe: send everything, drop_params decides
                self._supported = set()
        return [n for n in names if self._supported and n not in self._supported]

    @property
    def provider(self) -> str:
        return self.model.split("/", 1)[0]

    @property
    def identity(self) -> dict[str, Any]:
        # The server matters as much as the name: two checkpoints served under one
        # model name on two servers are two models.
        base = self.api_base.rstrip("/") if self.api_base else None
        return {"backend": "litellm", "provider": self.provider, "model": self.model, "api_base": base}

    @property
    def connection_key(self) -> str:
        return f"{self.provider}@{self.api_base or ''}"

    async def answer(self, messages, params, sample):
        litellm = _litellm()
        kwargs = dict(params)
        kwargs.pop("timeout", None)
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self.api_key:
            kwargs["api_key"] = self.api_key
        try:
            # max_retries=0: the client retries (with Retry-After and the circuit
            # breaker); a second retry loop inside the SDK would hide both.
            response = await litellm.acompletion(
                model=self.model, messages=messages, timeout=params.get("timeout"), max_retries=0, **kwargs
            )
        except Exception as exc:  # classify; the client decides whether to retry
            raise classify_litellm_error(exc) from exc
        try:
            choice = response.choices[0]
            text = choice.message.content or ""
        except (AttributeError, IndexError, TypeError) as exc:  # a body that is no chat completion
            raise ProviderError(f"malformed response: {type(exc).__name__}: {exc}"[:500], retryable=True,
                                reason="bad_response") from exc
        if not isinstance(text, str):
            raise ProviderError(f"malformed response: content is {type(text).__name__}", retryable=True,
                                reason="bad_response")
        usage = getattr(response, "usage", None)
        try:
            cost = float(litellm.completion_cost(completion_response=response) or 0.0)
        except Exception:  # unpriced (local / self-hosted) models are free
            cost = 0.0
        return Answer(
            text=text,
            prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
            cost_usd=cost,
        )


def retry_after(exc: Exception) -> float | None:
    """Seconds the provider asked us to wait (``Retry-After``: seconds or an HTTP date),
    from whichever headers LiteLLM kept on the exception."""
    import email.utils
    import time

    candidates = [getattr(exc, "litellm_response_headers", None), getattr(exc, "headers", None)]
    response = getattr(exc, "response", None)
    candidates.append(getattr(response, "headers", None))
    for headers in candidates:
        if not headers:
            continue
        try:
            value = headers.get("retry-after") or headers.get("Retry-After")
        except AttributeError:
            continue
        if value is None:
            continue
        value = str(value).strip()
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            continue
        return max(0.0, when.timestamp() - time.time())
    return None


def classify_litellm_error(exc: Exception) -> ProviderError:
    name = type(exc).__name__
    retryable = {
        "RateLimitError": "rate_limit",
        "InternalServerError": "server_error",
        "ServiceUnavailableError": "server_error",
        "BadGatewayError": "server_error",
        "APIConnectionError": "connection",
        "Timeout": "timeout",
        "TimeoutError": "timeout",
    }
    if name in retryable:
        return ProviderError(f"{name}: {exc}"[:500], retryable=True, reason=retryable[name],
                             retry_after=retry_after(exc))
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and (status >= 500 or status == 429):
        return ProviderError(f"{name}: {exc}"[:500], retryable=True,
                             reason="rate_limit" if status == 429 else "server_error", retry_after=retry_after(exc))
    reason = {
        "AuthenticationError": "auth",
        "NotFoundError": "model_not_found",
        "BadRequestError": "bad_request",
        "ContextWindowExceededError": "context_window",
        "ContentPolicyViolationError": "content_policy",
    }.get(name, "provider_error")
    return ProviderError(f"{name}: {exc}"[:500], retryable=False, reason=reason)


# --------------------------------------------------------------------------- selection


def make_backend(model: str, *, api_base: str | None = None, api_key: str | None = None) -> Backend:
    if model.startswith("scripted:"):
        return ScriptedBackend(model.split(":", 1)[1])
    if model.startswith("replay:"):
        return ReplayBackend(model.split(":", 1)[1])
    if model.startswith("released:"):
        from tczoo.llm.released import ReleasedBackend

        return ReleasedBackend(model.split(":", 1)[1])
    if model.startswith("local/"):
        from tczoo.llm.local import LocalBackend

        return LocalBackend(model)
    if "/" not in model:
        raise ModelSpecError(
            f"model {model!r}: use provider/model (e.g. openai/gpt-4o), local/qwen2.5-coder-1.5b, "
            "scripted:PATH, replay:RUN_DIR or released:PATH[+PATH]"
        )
    return LiteLLMBackend(model, api_base=api_base, api_key=api_key)

