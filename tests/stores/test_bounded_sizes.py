"""A session measured with upper bounds (the tokenizer not loaded) decides as an exact one.

Far below its limits a view is measured with each message's UTF-8 bytes; once the bound passes
the lowest limit a turn acts at, or a reduction is planned, or ``size`` is read, the view is
counted exactly. The views, the summaries and the sizes must be those of a session counted
exactly from the start, on every backend.
"""

from __future__ import annotations

import json
from typing import Any

from summem import Memory, SummarizationReducer
from summem.messages import Message
from summem.tokens.openai import TiktokenCounter
from tests.fakes.summarizers import FakeSummarizer
from tests.stores.backends import Backend


class Unloaded(TiktokenCounter):
    """A counter whose encoding counts as not loaded; counts its exact counts."""

    exact_counts = 0

    @property
    def loaded(self) -> bool:
        return False

    def count_message(self, message: Message) -> int:
        self.exact_counts += 1
        return super().count_message(message)


def conversation(turns: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": "You help with orders."}]
    for t in range(turns):
        out.append({"role": "user", "content": f"Where is order A{t}? Ünïcödé 🎉 " * (1 + t % 3)})
        if t % 3 == 1:
            cid = f"call_{t}"
            call = {"name": "lookup", "arguments": json.dumps({"order": f"A{t}"})}
            out.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": cid, "type": "function", "function": call}],
                }
            )
            result = json.dumps({"status": "shipped", "eta": f"day {t}"})
            out.append({"role": "tool", "tool_call_id": cid, "content": result})
        out.append({"role": "assistant", "content": f"Order A{t} ships on day {t}. " * 2})
    return out


def run(backend: Backend, counter: TiktokenCounter, session: str) -> list[Any]:
    reducer = SummarizationReducer(
        FakeSummarizer(),
        threshold_tokens=400,
        target_tokens=250,
        summary_max_tokens=40,
        token_counter=counter,
    )
    seen: list[Any] = []
    with Memory(session, reducer=reducer, store=backend.make()) as memory:
        for message in conversation(30):
            memory.add(message)
            seen.append((memory.messages(), memory.summary and memory.summary.text))
        seen.append(memory.size)
        memory.reduce()
        seen.append((memory.messages(), memory.size))
        again = Memory(session, reducer=reducer, store=backend.make())  # read back, bounded
        seen.append((again.messages(), again.size))
        again.close()
    return seen


def test_a_bounded_session_decides_as_an_exact_one(sync_backend: Backend) -> None:
    bounded = Unloaded("gpt-4o")
    assert run(sync_backend, bounded, "bounded") == run(
        sync_backend, TiktokenCounter("gpt-4o"), "exact"
    )
    assert bounded.exact_counts > 0  # reductions were planned on exact counts


def test_the_first_turns_are_not_tokenized(sync_backend: Backend) -> None:
    counter = Unloaded("gpt-4o")
    reducer = SummarizationReducer(
        FakeSummarizer(), threshold_tokens=8000, target_tokens=6000, token_counter=counter
    )
    with Memory("s", reducer=reducer, store=sync_backend.make()) as memory:
        memory.add({"role": "system", "content": "Be brief."})
        for message in conversation(5)[1:]:
            memory.add(message)
            memory.messages()
        tokenized = counter.exact_counts  # the assistant's tool calls only
        assert tokenized == sum(1 for m in conversation(5) if m.get("tool_calls"))
        size = memory.size  # asked for: counted exactly, once per message
        assert counter.exact_counts > tokenized
        exact = TiktokenCounter("gpt-4o")
        view = [Message.from_openai(m) for m in memory.messages()]
        assert size == sum(exact.count_message(m) for m in view) + exact.request_overhead
