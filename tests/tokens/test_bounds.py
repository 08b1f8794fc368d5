"""Upper bounds on token counts: a view far below its threshold is measured without the
tokenizer, and a bound is never below the exact count (a budget may never be passed)."""

from __future__ import annotations

import pytest

from summem.messages import Message, assistant, system, tool, user
from summem.tokens.openai import TiktokenCounter

TEXTS = [
    "",
    "hello world",
    "   leading and trailing   ",
    "a" * 5000,
    "<|endoftext|> and <|im_start|> are plain text here",
    "日本語のテキストとemoji 🎉🎉🎉 mixed",
    "Ünïcödé àccents, ß and \u017f",
    "1234567890" * 50,
    "\n\n\t\t  \n",
    "الْعَرَبِيَّة",
    "\U0001d518\U0001d52b\U0001d526 math letters",
]


class Unloaded(TiktokenCounter):
    """A counter whose encoding counts as not loaded: bounds take the byte path."""

    exact_counts = 0

    @property
    def loaded(self) -> bool:
        return False

    def count_message(self, message: Message) -> int:
        self.exact_counts += 1
        return super().count_message(message)


def messages(text: str) -> list[Message]:
    out = [user(text or "x"), system(text or "x"), tool(text or "x", tool_call_id="call_" + text)]
    if text:
        out.append(assistant(text))
    return out


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4", "gpt-3.5-turbo-0301"])
@pytest.mark.parametrize("text", TEXTS)
def test_a_bound_is_never_below_the_exact_count(model: str, text: str) -> None:
    bounded, exact = Unloaded(model), TiktokenCounter(model)
    for message in messages(text):
        fresh = Message.from_openai(message.to_openai())  # no cached count
        assert bounded.bound_message(fresh) >= exact.count_message(message)
    assert bounded.bound_text(text) >= exact.count_text(text)


def test_plain_messages_are_bounded_without_tokenizing() -> None:
    counter = Unloaded("gpt-4o")
    for message in [user("hi"), system("be brief"), tool("{}", tool_call_id="c1")]:
        counter.bound_message(message)
    assert counter.exact_counts == 0
    assert user("x").token_cache == {}  # bounds are not cached as counts


def test_other_messages_are_counted_exactly() -> None:
    counter = Unloaded("gpt-4o")
    calls = [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    named = user("hi", name="ann")
    parts = user([{"type": "text", "text": "hi"}])
    for message in [assistant(None, tool_calls=calls), named, parts]:
        assert counter.bound_message(message) == TiktokenCounter("gpt-4o").count_message(message)
    assert counter.exact_counts == 3


def test_a_loaded_counter_bounds_exactly_and_a_cached_count_is_used() -> None:
    counter = TiktokenCounter("gpt-4o")
    message = user("hello world")
    assert counter.bound_message(message) == counter.count_message(message)
    unloaded = Unloaded("gpt-4o")
    assert unloaded.bound_message(message) == counter.count_message(message)  # the cache
    assert unloaded.exact_counts == 0


def test_the_encoding_loads_on_first_use_and_unknown_names_fail_at_once() -> None:
    from summem.errors import ConfigurationError

    counter = TiktokenCounter("gpt-4o")
    assert counter.key == "tiktoken:o200k_base"
    assert counter.encoding.name == "o200k_base" and counter.loaded
    with pytest.raises(ConfigurationError):
        TiktokenCounter("gpt-4o", encoding="nonexistent_base")
