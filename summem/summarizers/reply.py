"""One summarization call's outcome: a reply accepted or refused, a failure, what it cost.

A reply is a summary only if it is one (invariant I4): an error inside a 200, a refusal or a
filtered reply, a reply cut at the output limit, an empty one, one with no word or number in
it (a lone code fence), one that repeats the prompt's instructions, or one that is only the
``(none)`` an empty field of the prompt reads is an
:class:`~summem.errors.InvalidSummaryError`, never committed (:func:`accept_reply`). A call
that failed becomes a :class:`~summem.errors.SummarizationError` naming the provider,
model, status and attempts, with secrets redacted (:func:`call_failure`). Each call's tokens
are the provider's figures, or estimated with the request's counter when it reports none
(:func:`call_usage`).
"""

from __future__ import annotations

from summem._secrets import redact
from summem.clients.base import ChatRequest, ChatResponse
from summem.errors import InvalidSummaryError, LLMError, SummarizationError
from summem.summarizers.checks import (
    ECHO_SHARE,
    copied_delimiters,
    echo_share,
    placeholder_only,
)
from summem.tokens.base import TokenCounter

__all__ = ["accept_reply", "call_failure", "call_usage"]


def accept_reply(response: ChatResponse, *, name: str, instructions: str) -> str:
    """The reply's text, or an :class:`InvalidSummaryError` saying why it is unusable.

    Args:
        response: the provider's reply.
        name: the summarizer's name, for messages.
        instructions: the prompt's instructions, which a reply must not merely repeat.
    """
    where = f"summarizer {name!r}"
    provider = response.provider or "the provider"
    if response.error is not None:
        raise InvalidSummaryError(
            f"{where}: {provider} returned an error inside a successful reply: "
            f"{redact(response.error)}"
        )
    if response.refusal or response.finish_reason == "content_filter":
        detail = f": {redact(response.refusal)[:200]}" if response.refusal else ""
        raise InvalidSummaryError(
            f"{where}: the model refused or its reply was filtered "
            f"(finish_reason={response.finish_reason!r}){detail}"
        )
    if response.finish_reason == "length":
        raise InvalidSummaryError(
            f"{where}: the reply was cut off at the output limit (finish_reason='length'); "
            "a truncated summary is never used"
        )
    text = response.text.strip()
    if not text:
        raise InvalidSummaryError(f"{where}: the model returned an empty summary")
    if not any(ch.isalnum() for ch in text):
        raise InvalidSummaryError(
            f"{where}: the reply has no word or number in it ({text[:40]!r}: punctuation or "
            "markup only), not a summary"
        )
    share = echo_share(text, instructions)
    if share >= ECHO_SHARE:
        raise InvalidSummaryError(
            f"{where}: the reply repeats the prompt's instructions ({share:.0%} of its "
            "phrases are the prompt's own), not a summary"
        )
    if placeholder_only(text):
        raise InvalidSummaryError(
            f"{where}: the reply ({text[:40]!r}) is only the text that stands for an empty "
            "field in the prompt, nothing from the conversation: not a summary"
        )
    copied = copied_delimiters(text)
    if copied:
        raise InvalidSummaryError(
            f"{where}: the reply copies the prompt's block tags ({', '.join(copied)}), "
            "which the conversation text never holds intact: it repeats its input, not a "
            "summary"
        )
    return text


def call_failure(
    exc: LLMError,
    *,
    name: str,
    model: str,
    calls: int,
    reason: str | None = None,
    usage: dict[str, int] | None = None,
) -> SummarizationError:
    """The error a failed call becomes (raise it ``from exc``)."""
    status = exc.status_code if exc.status_code is not None else "n/a"
    why = f" ({reason})" if reason else ""
    return SummarizationError(
        redact(
            f"summarizer {name!r} failed{why}: provider={exc.provider or 'unknown'} "
            f"model={model} status={status} attempts={calls}: {exc}"
        ),
        usage=usage,
    )


def call_usage(response: ChatResponse, chat: ChatRequest, counter: TokenCounter) -> tuple[int, int]:
    """(input, output) tokens of one call: as reported, or estimated when not reported."""
    if response.usage_reported:
        return response.input_tokens, response.output_tokens
    sent = sum(counter.count_text(str(m.get("content") or "")) + 4 for m in chat.messages)
    return sent, counter.count_text(response.text)
