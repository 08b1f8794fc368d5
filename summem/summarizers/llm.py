"""The LLM summarizer: a prompt, a model (litellm or the openai SDK), retries, and checks.

:meth:`LLMSummarizer.summarize` is one sans-I/O flow for both worlds: it renders the span and
the prompt, yields a :class:`~summem.clients.base.ChatCall` (the driver performs it, sync or
async, under the :class:`~summem.retry.RetryPolicy`), and checks the reply *before* returning
it: an empty, truncated (``length``), filtered or refused reply, or a provider error inside a
200, is an :class:`~summem.errors.InvalidSummaryError`, never a summary (invariant I4).

A span too large for one call (over ``max_chunk_tokens``, over the model's known input limit,
or refused with a context-window error) is halved at message boundaries and summarized in
rounds, each folding its chunk into the previous round's summary. Rounds are bounded by
``max_rounds`` (invariant I7): when the span cannot fit in that many, the flow fails with a
:class:`~summem.errors.SummarizationError` before spending calls it cannot finish with.

Beside it: which client it talks to (:mod:`summem.summarizers.endpoint`), what a reply must
pass and what a failed call says (:mod:`summem.summarizers.reply`), how a span is cut
(:mod:`summem.summarizers.chunking`) and rendered (:mod:`summem.summarizers.render`), and
reusing the assistant's own request (:mod:`summem.summarizers.sent`).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from summem._flow import Flow
from summem.clients.base import ChatCall, ChatRequest, ChatResponse, LLMClient
from summem.errors import (
    ConfigurationError,
    ContextWindowExceededError,
    InvalidSummaryError,
    LLMError,
    SummarizationError,
)
from summem.messages import Message
from summem.prompts import PromptTemplate, load_prompt
from summem.retry import RetryPolicy
from summem.summarizers.base import SummaryOutput, SummaryRequest
from summem.summarizers.chunking import (
    clip_for,
    halve_clip,
    span_tokens,
    split_in_half,
    split_to_budget,
)
from summem.summarizers.endpoint import OUTPUT_CAP_NAMES, honours_output_cap, resolve_client
from summem.summarizers.render import render_transcript
from summem.summarizers.reply import accept_reply, call_failure, call_usage
from summem.summarizers.sections import carry_sections
from summem.summarizers.sent import STOP, InPlace, forced_tool_choice, in_place, position_note

if TYPE_CHECKING:
    import openai

__all__ = ["LLMSummarizer"]

logger = logging.getLogger("summem.summarizers.llm")


class LLMSummarizer:
    """Summarizes with a chat model.

    Args:
        model: the model name: a litellm name (``"gpt-4o-mini"``,
            ``"anthropic/claude-3-5-haiku-latest"``) or, with an openai client, the name that
            endpoint expects (an Azure deployment, say).
        client: an ``openai.OpenAI`` / ``openai.AsyncOpenAI`` (Azure or any ``base_url``), or
            any :class:`~summem.clients.base.LLMClient`. Without one, litellm is used.
        async_client: the ``openai.AsyncOpenAI`` to pair with a sync ``client``.
        prompt: a shipped prompt's name, a YAML file's path, or a loaded template.
        retry: the retry policy; ``RetryPolicy()`` by default. Its ``deadline_seconds``
            bounds the whole summarization of a span, every round included, not each call.
        temperature: overrides the prompt's temperature.
        tool_result_max_chars: cap on each tool result in the transcript.
        message_max_chars: cap on any one message's share of the transcript (its middle is
            elided, with a note), so a huge message never reaches the model whole.
        max_chunk_tokens: the largest span (by the request's token counter) sent in one call.
        max_rounds: most summarization calls for one span (retries of a call not counted;
            each call retries at most ``retry.max_attempts`` times).
        stream: read each reply as a stream and cut it once it passes the output cap, so that
            a server ignoring the cap cannot run on. By default on for every endpoint but
            OpenAI's, Azure's and the hosted providers litellm reaches without an ``api_base``
            (they honour the cap).
        max_tokens_param: the name the output cap is sent under (``max_tokens``,
            ``max_completion_tokens``...); by default the one the endpoint honours.
        reuse_cache: send the assistant's last request unchanged (same model, messages and
            tools, as recorded by ``Memory.note_sent``; the wrappers record it) plus one
            instruction naming the span by position, so that the provider bills its prefix
            as a cache read. Needs the assistant's own model: with another one (or when the
            request no longer shows the span), the usual prompt is sent and the summary's
            ``extra["cache_reuse"]`` says why. See :mod:`summem.summarizers.sent`.
        **model_kwargs: sent with every call (``top_p``, ``reasoning_effort``...);
            ``timeout`` is the per-request timeout; with litellm, connection settings
            (``api_key``, ``api_base``, ``api_version``...) configure its client.
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        client: openai.OpenAI | openai.AsyncOpenAI | LLMClient | None = None,
        async_client: openai.AsyncOpenAI | None = None,
        prompt: str | Path | PromptTemplate = "summarize",
        retry: RetryPolicy | None = None,
        temperature: float | None = None,
        tool_result_max_chars: int = 2000,
        message_max_chars: int = 16_000,
        max_chunk_tokens: int | None = None,
        max_rounds: int = 8,
        stream: bool | None = None,
        max_tokens_param: str | None = None,
        reuse_cache: bool = False,
        **model_kwargs: Any,
    ) -> None:
        if not model or not isinstance(model, str):
            raise ConfigurationError("LLMSummarizer needs a model name, e.g. 'gpt-4o-mini'")
        if max_rounds < 1:
            raise ConfigurationError(f"max_rounds must be at least 1, got {max_rounds}")
        if max_chunk_tokens is not None and max_chunk_tokens < 1:
            raise ConfigurationError(f"max_chunk_tokens must be positive, got {max_chunk_tokens}")
        if tool_result_max_chars < 0:
            raise ConfigurationError("tool_result_max_chars must not be negative")
        if message_max_chars < 1:
            raise ConfigurationError("message_max_chars must be positive")
        self.message_max_chars = message_max_chars
        self.model = model
        self.prompt = prompt if isinstance(prompt, PromptTemplate) else load_prompt(prompt)
        self.retry = retry if retry is not None else RetryPolicy()
        self.temperature = temperature
        self.tool_result_max_chars = tool_result_max_chars
        self.max_chunk_tokens = max_chunk_tokens
        self.max_rounds = max_rounds
        timeout = model_kwargs.pop("timeout", None)
        self.timeout: float | None = float(timeout) if timeout is not None else None
        if max_tokens_param is not None and max_tokens_param not in OUTPUT_CAP_NAMES:
            raise ConfigurationError(
                f"max_tokens_param must be one of {', '.join(OUTPUT_CAP_NAMES)}, "
                f"got {max_tokens_param!r}"
            )
        self.client, self.parameters = resolve_client(
            client, async_client, model_kwargs, max_tokens_param
        )
        self.stream = stream if stream is not None else not honours_output_cap(self.client)
        self._input_limit: int | None = None
        self._input_limit_known = False
        self.reuse_cache = bool(reuse_cache)
        self._warned_models: set[str] = set()

    @property
    def name(self) -> str:
        """``llm:<model>``, recorded in each summary's provenance."""
        return f"llm:{self.model}"

    def __repr__(self) -> str:
        return (
            f"LLMSummarizer(model={self.model!r}, prompt={self.prompt.ref!r}, "
            f"client={self.client!r})"
        )

    # -- the flow -------------------------------------------------------------------------

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        """One flow for sync and async callers: yields chat calls, returns the summary.

        Raises:
            InvalidSummaryError: a reply was empty, truncated, refused or an error.
            SummarizationError: the calls failed (after retries; the cause is chained), the
                span does not fit in ``max_rounds`` calls, or the retry policy's deadline
                passed before the last round.
        """
        counter = request.token_counter
        messages = list(request.messages)
        kept = self._kept(request)
        budget = self._span_budget(request, kept)
        chunks = split_to_budget(messages, counter, budget) if budget else [messages]
        pending = [(chunk, clip_for(chunk, counter, budget)) for chunk in chunks]
        summary = request.previous_summary
        rounds = calls = input_tokens = output_tokens = 0
        estimated = False

        def spent() -> dict[str, int]:
            return {"calls": calls, "input_tokens": input_tokens, "output_tokens": output_tokens}

        started: float | None = None
        response = ChatResponse()
        clipped: set[str] = set()
        reuse: bool | str = False
        if self.reuse_cache:
            found = self._in_place(request)
            reuse = found if isinstance(found, str) else True
            if isinstance(found, InPlace):
                policy, started = self._round_policy(started, rounds, calls)
                chat = self._in_place_request(found, request, kept)
                step = ChatCall(self.client, chat, policy)
                rounds += 1
                try:
                    response = yield step
                except ContextWindowExceededError:
                    calls += step.attempts
                    reuse = "the assistant's request and the instruction exceed the context"
                    logger.info("cache reuse: %s; summarizing with the prompt", reuse)
                except LLMError as exc:
                    calls += step.attempts
                    raise self._failure(exc, calls, usage=spent()) from exc
                else:
                    calls += step.attempts
                    input_tokens, output_tokens = call_usage(response, chat, counter)
                    try:
                        summary = self._carried(
                            accept_reply(
                                response, name=self.name, instructions=self.prompt.instructions
                            ),
                            summary,
                        )
                    except InvalidSummaryError as exc:
                        exc.usage = spent()
                        raise
                    pending = []
                    estimated = not response.usage_reported
        while pending:
            needed = rounds + len(pending)
            if needed > self.max_rounds:
                raise SummarizationError(
                    f"summarizer {self.name!r}: the span ({len(messages)} messages, "
                    f"{span_tokens(messages, counter)} tokens) needs at least {needed} calls "
                    f"to fit the model; max_rounds is {self.max_rounds}"
                )
            policy, started = self._round_policy(started, rounds, calls)
            chunk, clip = pending.pop(0)
            if clip is not None:
                clipped.add(chunk[0].id)
            # the kept turns follow the span's last chunk: an earlier one is followed by the
            # next chunk, and a reply among the kept turns is not to an offer it ends with
            after = kept if not pending else None
            chat = self._chat_request(chunk, summary, request, clip=clip, kept=after)
            step = ChatCall(self.client, chat, policy)
            rounds += 1
            logger.debug(
                "summarizing round %d: %d messages, %d tokens, model=%s",
                rounds,
                len(chunk),
                span_tokens(chunk, counter),
                self.model,
            )
            try:
                response = yield step
            except ContextWindowExceededError as exc:
                calls += step.attempts
                halves = split_in_half(chunk, counter)
                if halves is not None:
                    logger.info("context window exceeded; splitting %d messages", len(chunk))
                    pending[0:0] = [(half, None) for half in halves]
                    continue
                smaller = halve_clip(chunk[0], clip)
                if smaller is None:
                    raise self._failure(
                        exc,
                        calls,
                        "a single message does not fit the model's context window",
                        usage=spent(),
                    ) from exc
                logger.info("context window exceeded; clipping one message to %d chars", smaller)
                pending.insert(0, (chunk, smaller))
                continue
            except LLMError as exc:
                calls += step.attempts
                raise self._failure(exc, calls, usage=spent()) from exc
            calls += step.attempts
            spent_in, spent_out = call_usage(response, chat, counter)
            estimated = estimated or not response.usage_reported
            input_tokens += spent_in
            output_tokens += spent_out
            try:
                summary = self._carried(
                    accept_reply(response, name=self.name, instructions=self.prompt.instructions),
                    summary,
                )
            except InvalidSummaryError as exc:
                exc.usage = spent()
                raise
        return SummaryOutput(
            text=summary or "",
            summarizer=self.name,
            model=self.model,
            prompt=self.prompt.ref,
            prompt_hash=self.prompt.hash,
            finish_reason=response.finish_reason,
            calls=calls,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            extra={
                "rounds": rounds,
                "clipped_messages": len(clipped),
                **({"usage_estimated": True} if estimated else {}),
                **({"cache_reuse": reuse} if self.reuse_cache else {}),
            },
        )

    # -- pure parts -----------------------------------------------------------------------

    def _carried(self, reply: str, previous: str | None) -> str:
        """``reply`` with the previous summary's sections it dropped carried forward."""
        text = carry_sections(reply, previous, self.prompt.sections)
        if text != reply:
            logger.info("summarizer %r: the reply left out a section; carried forward", self.name)
        return text

    def _round_policy(
        self, started: float | None, rounds: int, calls: int
    ) -> tuple[RetryPolicy, float | None]:
        """The retry policy for the next round: the deadline is shared by every round.

        Returns the policy (its deadline cut to the time left) and when the first round began.

        Raises:
            SummarizationError: the deadline has passed; no further call is made.
        """
        deadline = self.retry.deadline_seconds
        if deadline is None:
            return self.retry, started
        now = (self.retry.clock or time.monotonic)()
        started = now if started is None else started
        left = deadline - (now - started)
        if left <= 0:
            raise SummarizationError(
                f"summarizer {self.name!r}: deadline of {deadline:g}s reached after {rounds} "
                f"round(s) and {calls} call(s); the span is not summarized"
            )
        return dataclasses.replace(self.retry, deadline_seconds=left), started

    def _parameters(self) -> dict[str, Any]:
        params: dict[str, Any] = dict(self.prompt.parameters)
        params.update(self.parameters)
        if self.temperature is not None:
            params["temperature"] = self.temperature
        return params

    def _output_cap(self, request: SummaryRequest) -> int | None:
        """Room for the reply: twice the summary budget (reasoning models think in it too)."""
        if any(name in self._parameters() for name in OUTPUT_CAP_NAMES):
            return None
        return max(2 * request.max_tokens, request.max_tokens + 256)

    def _chat_request(
        self,
        chunk: list[Message],
        summary: str | None,
        request: SummaryRequest,
        *,
        clip: int | None = None,
        kept: str | None = None,
    ) -> ChatRequest:
        transcript = render_transcript(
            chunk,
            tool_result_max_chars=self.tool_result_max_chars,
            delimiters=self.prompt.delimiters,
            message_max_chars=self.message_max_chars
            if clip is None
            else min(clip, self.message_max_chars),
        )
        messages = self.prompt.render(
            previous_summary=summary,
            transcript=transcript,
            max_tokens=request.max_tokens,
            focus=request.focus,
            must_keep=request.must_keep,
            kept=kept,
        )
        cap = self._output_cap(request)
        return ChatRequest(
            model=self.model,
            messages=[dict(m) for m in messages],
            parameters=self._parameters(),
            timeout=self.timeout,
            max_output_tokens=cap,
            stream=self.stream,
            stop_after_tokens=cap if cap is not None else 2 * request.max_tokens + 256,
        )

    def _in_place(self, request: SummaryRequest) -> InPlace | str:
        """The span's place in the assistant's last request, or why it cannot be reused."""
        sent = request.sent
        if sent is None:
            return "no request sent by the assistant was recorded"
        if sent.model != self.model:
            reason = (
                f"the assistant's model ({sent.model}) is not the summarizer's ({self.model}): "
                "a provider caches prompts per model, so its cache cannot be reused"
            )
            if sent.model not in self._warned_models:
                self._warned_models.add(sent.model)
                logger.warning("summarizer %r: %s; summarizing with the prompt", self.name, reason)
            return reason
        found = in_place(sent, request.messages, request.previous_summary)
        if isinstance(found, str):
            logger.debug("cache reuse: %s; summarizing with the prompt", found)
        return found

    def _in_place_request(
        self, found: InPlace, request: SummaryRequest, kept: str | None = None
    ) -> ChatRequest:
        """The assistant's request as sent, plus one user message asking for the summary."""
        sent = request.sent
        assert sent is not None
        summary, span = position_note(found)
        rendered = self.prompt.render(
            previous_summary=summary or None,
            transcript=span,
            max_tokens=request.max_tokens,
            focus=request.focus,
            must_keep=request.must_keep,
            kept=self._kept_in_place(found, request) if kept is not None else None,
        )
        instruction = "\n\n".join([STOP, *(str(m["content"]) for m in rendered)])
        params = self._parameters()
        if sent.prompt_cache_key:
            params["prompt_cache_key"] = sent.prompt_cache_key
        if sent.tools:
            params["tools"] = [dict(t) for t in sent.tools]
            choice = sent.tool_choice
            if forced_tool_choice(choice):
                choice = "none"  # a forced call would leave no text to summarize with
            if choice is not None:
                params["tool_choice"] = choice
        cap = self._output_cap(request)
        return ChatRequest(
            model=self.model,
            messages=[*found.messages, {"role": "user", "content": instruction}],
            parameters=params,
            timeout=self.timeout,
            max_output_tokens=cap,
            stream=self.stream,
            stop_after_tokens=cap if cap is not None else 2 * request.max_tokens + 256,
        )

    def _known_input_limit(self) -> int | None:
        if not self._input_limit_known:
            limit = self.client.max_input_tokens(self.model)
            self._input_limit = limit if isinstance(limit, int) and limit > 0 else None
            self._input_limit_known = True
        return self._input_limit

    def _kept_in_place(self, found: InPlace, request: SummaryRequest) -> str | None:
        """The kept turns for the instruction after the assistant's request (cache reuse).

        The request already shows the kept turns it was sent with, right after the span: they
        are named by position, as the span is, not repeated. Those appended since (not in
        it) are rendered as ``{kept}`` renders them.
        """
        ids = (request.sent.ids if request.sent is not None else None) or ()
        above = list(ids[found.last + 1 :])
        shown = set(above)
        rest = [m for m in request.kept if m.id not in shown]
        parts = []
        if above:
            last = found.last + len(above)
            where = f"#{last}" if len(above) == 1 else f"#{found.last + 1} to #{last}"
            parts.append(f"(message{'s' if len(above) > 1 else ''} {where} above)")
        text = self._kept(request, rest) if rest else None
        if text:
            parts.append(text)
        return "\n\n".join(parts) or None

    def _kept(self, request: SummaryRequest, only: Sequence[Message] | None = None) -> str | None:
        """The kept turns rendered like the span, for a prompt that uses ``{kept}`` (else None).

        A prompt without it never reads ``request.kept``: nothing more is sent, and kept turns
        redacted on read (a reducer's ``redactor``) are not redacted for nothing. ``only``:
        those of them to render (the rest are shown otherwise).
        """
        if "kept" not in self.prompt.placeholders or not request.kept:
            return None
        turns = tuple(request.kept if only is None else only)

        def rendered(n: int) -> str:
            return render_transcript(
                turns[:n],
                tool_result_max_chars=self.tool_result_max_chars,
                delimiters=self.prompt.delimiters,
                message_max_chars=self.message_max_chars,
            )

        room = self._kept_room(request)
        count = request.token_counter.count_text
        if room is None or count(rendered(len(turns))) <= room:
            return rendered(len(turns))
        fits, over = 0, len(turns)  # the most turns, from the first, whose rendering fits
        while over - fits > 1:
            mid = (fits + over) // 2
            fits, over = (mid, over) if count(rendered(mid)) <= room else (fits, mid)
        return rendered(fits) if fits else None

    def _kept_room(self, request: SummaryRequest) -> int | None:
        """The kept turns' room: at most half what the model's input limit leaves a span.

        They are context, and must never leave the span too little room to be summarized.
        The turns right after the span come first; those that do not fit are left out (none
        at all when not even the first fits). ``None`` when the model's limit is unknown.
        """
        without = self._span_budget(request, None)
        return None if without is None or self._known_input_limit() is None else without // 2

    def _span_budget(self, request: SummaryRequest, kept: str | None = None) -> int | None:
        """Largest span for one call: ``max_chunk_tokens`` and what the model's limit leaves.

        The model's room is estimated with the request's counter: its input limit minus the
        prompt (with the kept turns, for a prompt that shows them), the (previous or next)
        summary and the reply's cap.
        """
        budgets = [self.max_chunk_tokens] if self.max_chunk_tokens else []
        limit = self._known_input_limit()
        if limit:
            counter = request.token_counter
            bare = self.prompt.render(previous_summary=None, transcript="", max_tokens=1, kept=kept)
            prompt_tokens = sum(counter.count_text(m["content"]) + 4 for m in bare)
            previous = counter.count_text(request.previous_summary or "")
            overhead = prompt_tokens + max(previous, request.max_tokens)
            overhead += self._output_cap(request) or request.max_tokens
            budgets.append(max(1, limit - overhead))
        return min(budgets) if budgets else None

    def _failure(
        self,
        exc: LLMError,
        calls: int,
        reason: str | None = None,
        *,
        usage: dict[str, int] | None = None,
    ) -> SummarizationError:
        return call_failure(
            exc, name=self.name, model=self.model, calls=calls, reason=reason, usage=usage
        )
