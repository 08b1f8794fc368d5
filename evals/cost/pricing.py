"""What a request is billed under each provider's prompt-caching rules, offline.

A request is a sequence of :class:`Segment` s (the tool definitions, then one per message), each
with a key (its exact bytes, hashed) and its size in tokens. A provider's cache is a set of
prefixes it has seen; what a request is billed depends on the longest prefix of it found there:

- **OpenAI** (:class:`OpenAIPrefixCache`) caches every prompt automatically. A prompt of at least
  1,024 tokens whose prefix matches one already sent reads the match from the cache, counted in
  steps of 128 tokens (1,024, 1,152...); the rest is billed as new input. Nothing is billed for
  writing.
- **Anthropic** (:class:`AnthropicPromptCache`) caches only up to ``cache_control`` breakpoints
  (at most 4 per request). A breakpoint writes the prefix ending there (billed at the cache-write
  price, 1.25 times input) once it is at least the model's minimum (1,024 tokens for Sonnet);
  a later request reads the longest prefix written before, found at its own breakpoints or up
  to 20 blocks before each (the provider's look-back); what lies between that read and the last
  breakpoint is written; what follows the last breakpoint is plain input.

Both models work at message granularity: a message that changed stops the match where it
starts, even if its first tokens are the same (the providers match tokens, so they may read a
little more). Cache lifetime is not modelled: consecutive requests of a conversation are assumed
to come within the 5-minute lifetime, which each read refreshes.

Prices come from litellm's bundled map (:func:`price_of`, offline with
``LITELLM_LOCAL_MODEL_COST_MAP=True``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass

__all__ = [
    "ANTHROPIC_LOOKBACK_BLOCKS",
    "ANTHROPIC_MAX_BREAKPOINTS",
    "OPENAI_MIN_CACHED_TOKENS",
    "OPENAI_STEP_TOKENS",
    "AnthropicPromptCache",
    "Bill",
    "OpenAIPrefixCache",
    "Price",
    "Segment",
    "price_of",
]

OPENAI_MIN_CACHED_TOKENS = 1024
OPENAI_STEP_TOKENS = 128
ANTHROPIC_MAX_BREAKPOINTS = 4
ANTHROPIC_LOOKBACK_BLOCKS = 20


@dataclass(frozen=True)
class Segment:
    """One block of a request: the tool definitions, or one message, as sent."""

    key: str
    tokens: int

    @classmethod
    def of(cls, text: str, tokens: int) -> Segment:
        """A segment keyed by ``text``'s hash."""
        return cls(hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest(), tokens)


@dataclass(frozen=True)
class Bill:
    """The input side of one request, split as the provider bills it.

    Attributes:
        input_tokens: all prompt tokens.
        cache_read_tokens: read from the cache.
        cache_write_tokens: written to the cache (Anthropic only).
        output_tokens: the reply.
    """

    input_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0

    @property
    def uncached_tokens(self) -> int:
        """Input billed at the plain input price."""
        return self.input_tokens - self.cache_read_tokens - self.cache_write_tokens

    def dollars(self, price: Price) -> float:
        """What the request costs at ``price``."""
        return (
            self.uncached_tokens * price.input
            + self.cache_read_tokens * price.cache_read
            + self.cache_write_tokens * price.cache_write
            + self.output_tokens * price.output
        )


@dataclass(frozen=True)
class Price:
    """Dollars per token."""

    model: str
    input: float
    cache_read: float
    cache_write: float
    output: float


def price_of(model: str) -> Price:
    """``model``'s prices from litellm's bundled map (cache writes at input price if absent).

    Raises:
        KeyError: the map does not know the model or has no cache-read price for it.
    """
    import litellm

    info = litellm.model_cost.get(model)
    if not info or info.get("cache_read_input_token_cost") is None:
        raise KeyError(f"{model!r} has no cache prices in litellm's bundled map")
    base = float(info["input_cost_per_token"])
    return Price(
        model=model,
        input=base,
        cache_read=float(info["cache_read_input_token_cost"]),
        cache_write=float(info.get("cache_creation_input_token_cost") or base),
        output=float(info["output_cost_per_token"]),
    )


def _chain(segments: Sequence[Segment]) -> tuple[list[str], list[int]]:
    """The hash of every prefix (after each segment) and its size in tokens."""
    hashes: list[str] = []
    sizes: list[int] = []
    h = hashlib.blake2b(digest_size=16)
    total = 0
    for seg in segments:
        h.update(seg.key.encode("ascii"))
        hashes.append(h.copy().hexdigest())
        total += seg.tokens
        sizes.append(total)
    return hashes, sizes


class OpenAIPrefixCache:
    """OpenAI's automatic prefix caching, for one model and one organisation."""

    def __init__(self) -> None:
        self._seen: set[str] = set()

    def bill(self, segments: Sequence[Segment], output_tokens: int = 0) -> Bill:
        """Bill one request and remember its prefixes."""
        hashes, sizes = _chain(segments)
        total = sizes[-1] if sizes else 0
        match = 0
        for h, size in zip(hashes, sizes, strict=True):
            if h in self._seen:
                match = size
        cached = 0
        if total >= OPENAI_MIN_CACHED_TOKENS and match >= OPENAI_MIN_CACHED_TOKENS:
            cached = match // OPENAI_STEP_TOKENS * OPENAI_STEP_TOKENS
        self._seen.update(hashes)
        return Bill(total, cache_read_tokens=cached, output_tokens=output_tokens)


class AnthropicPromptCache:
    """Anthropic's explicit ``cache_control`` caching, for one model.

    Args:
        min_tokens: the shortest prefix the model caches (1,024 for Sonnet and Opus, 2,048 for
            Haiku).
    """

    def __init__(self, *, min_tokens: int = 1024) -> None:
        self.min_tokens = min_tokens
        self._written: set[str] = set()

    def bill(
        self, segments: Sequence[Segment], breakpoints: Collection[int], output_tokens: int = 0
    ) -> Bill:
        """Bill one request whose segments at ``breakpoints`` (indices) carry ``cache_control``.

        Raises:
            ValueError: more than four breakpoints, or one outside the request.
        """
        marks = sorted(set(breakpoints))
        if len(marks) > ANTHROPIC_MAX_BREAKPOINTS:
            raise ValueError(f"at most {ANTHROPIC_MAX_BREAKPOINTS} breakpoints, got {len(marks)}")
        if marks and not 0 <= marks[0] <= marks[-1] < len(segments):
            raise ValueError(f"breakpoints {marks} outside a request of {len(segments)} blocks")
        hashes, sizes = _chain(segments)
        total = sizes[-1] if sizes else 0
        read = 0
        for mark in marks:
            for i in range(mark, max(-1, mark - ANTHROPIC_LOOKBACK_BLOCKS - 1), -1):
                if hashes[i] in self._written:
                    read = max(read, sizes[i])
                    break
        written = 0
        if marks:
            last = sizes[marks[-1]]
            if last >= self.min_tokens and last > read:
                written = last - read
            self._written.update(hashes[m] for m in marks if sizes[m] >= self.min_tokens)
        return Bill(
            total, cache_read_tokens=read, cache_write_tokens=written, output_tokens=output_tokens
        )
