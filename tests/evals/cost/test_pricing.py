"""Prompt-caching arithmetic, against cases computed by hand."""

from __future__ import annotations

import pytest

from evals.cost.pricing import (
    AnthropicPromptCache,
    Bill,
    OpenAIPrefixCache,
    Price,
    Segment,
    price_of,
)


def seg(name: str, tokens: int) -> Segment:
    return Segment.of(name, tokens)


def test_openai_reads_the_shared_prefix_in_128_token_steps() -> None:
    cache = OpenAIPrefixCache()
    first = cache.bill([seg("sys", 1000), seg("u1", 300)], output_tokens=50)
    assert first == Bill(1300, cache_read_tokens=0, output_tokens=50)  # nothing seen yet
    second = cache.bill([seg("sys", 1000), seg("u1", 300), seg("a1", 70), seg("u2", 40)])
    # match = 1300 tokens (sys + u1); 1300 // 128 * 128 = 1280
    assert second.cache_read_tokens == 1280
    assert second.uncached_tokens == 1410 - 1280


def test_openai_caches_nothing_below_1024_tokens() -> None:
    cache = OpenAIPrefixCache()
    cache.bill([seg("sys", 900), seg("u1", 100)])
    # the match is 1000 tokens: under the 1,024 minimum, so nothing is read
    assert cache.bill([seg("sys", 900), seg("u1", 100), seg("u2", 500)]).cache_read_tokens == 0
    # a 1,100-token match in a 1,600-token prompt reads 1,024 (8 steps of 128)
    cache.bill([seg("big", 1100), seg("x", 10)])
    assert cache.bill([seg("big", 1100), seg("y", 500)]).cache_read_tokens == 1024


def test_openai_a_changed_message_ends_the_match() -> None:
    cache = OpenAIPrefixCache()
    cache.bill([seg("sys", 2000), seg("summary-1", 500), seg("u1", 500)])
    # a new summary after the system message: only the system prefix (2,000 -> 1,920) is read
    bill = cache.bill([seg("sys", 2000), seg("summary-2", 400), seg("u1", 500)])
    assert bill.cache_read_tokens == 1920
    # the same messages in another order share only the first
    assert cache.bill([seg("u1", 500), seg("sys", 2000)]).cache_read_tokens == 0


def test_anthropic_writes_up_to_the_last_breakpoint_and_reads_it_next_time() -> None:
    cache = AnthropicPromptCache(min_tokens=1024)
    first = cache.bill([seg("sys", 1500), seg("u1", 200), seg("a1", 100)], breakpoints=[0, 2])
    assert (first.cache_read_tokens, first.cache_write_tokens, first.uncached_tokens) == (
        0,
        1800,
        0,
    )
    second = cache.bill(
        [seg("sys", 1500), seg("u1", 200), seg("a1", 100), seg("u2", 50), seg("a2", 30)],
        breakpoints=[0, 4],
    )
    # read 1,800 (the entry written at a1, found by looking back from a2), write 80 more
    assert (second.cache_read_tokens, second.cache_write_tokens) == (1800, 80)
    assert second.uncached_tokens == 0


def test_anthropic_after_a_reduction_reads_the_system_prefix_only() -> None:
    cache = AnthropicPromptCache()
    cache.bill([seg("sys", 1200), seg("u1", 900), seg("a1", 900)], breakpoints=[0, 2])
    bill = cache.bill(
        [seg("sys", 1200), seg("summary", 300), seg("a1", 900)], breakpoints=[0, 1, 2]
    )
    assert (bill.cache_read_tokens, bill.cache_write_tokens) == (1200, 1200)


def test_anthropic_without_breakpoints_or_under_the_minimum_caches_nothing() -> None:
    cache = AnthropicPromptCache(min_tokens=1024)
    assert cache.bill([seg("sys", 5000)], breakpoints=[]) == Bill(5000)
    small = cache.bill([seg("sys", 500), seg("u", 500)], breakpoints=[1])
    assert small == Bill(1000)  # under 1,024: not written...
    assert cache.bill([seg("sys", 500), seg("u", 500)], breakpoints=[1]).cache_read_tokens == 0


def test_anthropic_looks_back_20_blocks_and_no_further() -> None:
    cache = AnthropicPromptCache()
    head = [seg("sys", 2000)]
    cache.bill(head, breakpoints=[0])
    near = head + [seg(f"m{i}", 1) for i in range(20)]
    assert cache.bill(near, breakpoints=[20]).cache_read_tokens == 2000
    far = head + [seg(f"n{i}", 1) for i in range(21)]
    assert cache.bill(far, breakpoints=[21]).cache_read_tokens == 0


def test_anthropic_refuses_a_fifth_breakpoint_and_one_outside_the_request() -> None:
    cache = AnthropicPromptCache()
    with pytest.raises(ValueError, match="at most 4"):
        cache.bill([seg(str(i), 1) for i in range(5)], breakpoints=range(5))
    with pytest.raises(ValueError, match="outside"):
        cache.bill([seg("a", 1)], breakpoints=[1])


def test_dollars_use_each_price() -> None:
    price = Price("m", input=1.0, cache_read=0.1, cache_write=1.25, output=4.0)
    bill = Bill(1000, cache_read_tokens=600, cache_write_tokens=200, output_tokens=10)
    assert bill.dollars(price) == pytest.approx(200 * 1.0 + 600 * 0.1 + 200 * 1.25 + 10 * 4.0)


def test_prices_come_from_litellms_bundled_map() -> None:
    openai = price_of("gpt-4.1-mini")
    assert openai.cache_read < openai.input == openai.cache_write  # no write price: input
    claude = price_of("claude-sonnet-4-5")
    assert claude.cache_read == pytest.approx(claude.input / 10)
    assert claude.cache_write == pytest.approx(claude.input * 1.25)
    with pytest.raises(KeyError, match="no cache prices"):
        price_of("no-such-model")
