"""The structured prompt's named sections are carried forward (issue #29): the prompt sent
holds the previous summary's sections and the rule to keep them, and a reply that leaves a
section out gets the previous block back (repaired, not rejected). Over HTTP (respx at the
transport), through the openai SDK and litellm, sync and async."""

from __future__ import annotations

import pytest

from summem.errors import PromptError
from summem.prompts import load_prompt, parse_prompt
from summem.summarizers.base import SummaryOutput, SummaryRequest
from summem.summarizers.sections import carry_sections, split_sections
from tests.fakes.counters import WordCounter
from tests.fakes.llm import FakeClock
from tests.fakes.providers import Backend, drive
from tests.fakes.replies import request_strings
from tests.summarizers.test_llm import span

PREVIOUS = """## User statements
- Maya: I prefer the aisle seat.
## Decisions
- Flight to Lisbon on 12 May, agreed by Maya.
## Open tasks
- Book the hotel near Alfama.
## Values
- Booking ref: QX-4471 (was QX-4470)
- Budget: 2300 EUR"""

REPLY_WITHOUT_VALUES = """## User statements
- Maya: I prefer the aisle seat.
- Maya: my sister Ines joins on the 14th.
## Decisions
- Flight to Lisbon on 12 May, agreed by Maya.
## Open tasks
- Book the hotel near Alfama.
- Add Ines to the booking."""


def structured_request(previous: str | None) -> SummaryRequest:
    return SummaryRequest(
        messages=span(), previous_summary=previous, max_tokens=300, token_counter=WordCounter()
    )


async def summarize(
    backend: Backend, mode: str, clock: FakeClock, previous: str | None
) -> SummaryOutput:
    summarizer = backend.summarizer(retry=clock.policy(), prompt="summarize-structured")
    out: SummaryOutput = await drive(summarizer.summarize(structured_request(previous)), mode)
    return out


async def test_the_prompt_sent_carries_the_previous_sections_and_the_rule(
    backend, route, mode, clock
):
    route.side_effect = [backend.ok(PREVIOUS)]
    await summarize(backend, mode, clock, PREVIOUS)
    sent = "\n".join(request_strings(route.calls[0]))
    for line in PREVIOUS.splitlines():
        assert line in sent
    assert "every section it has must be in your summary" in sent
    for heading in load_prompt("summarize-structured").sections:
        assert f"## {heading}:" in sent  # the instructions name every section


async def test_a_reply_dropping_a_section_gets_the_previous_block_back(backend, route, mode, clock):
    route.side_effect = [backend.ok(REPLY_WITHOUT_VALUES)]
    out = await summarize(backend, mode, clock, PREVIOUS)
    _, blocks = split_sections(out.text)
    assert list(blocks) == ["user statements", "decisions", "open tasks", "values"]
    assert "- Booking ref: QX-4471 (was QX-4470)\n- Budget: 2300 EUR" in blocks["values"]
    assert "Ines joins on the 14th" in blocks["user statements"]  # the reply's news is kept
    assert out.prompt == "summarize-structured@2"


async def test_a_complete_reply_is_used_as_written(backend, route, mode, clock):
    reply = REPLY_WITHOUT_VALUES + "\n## Values\n- Booking ref: QX-5000 (was QX-4471)"
    route.side_effect = [backend.ok(reply)]
    out = await summarize(backend, mode, clock, PREVIOUS)
    assert out.text == reply  # a corrected value is the model's to write, never overwritten


def test_carry_sections_keeps_the_declared_order_and_the_preamble() -> None:
    sections = ("User statements", "Decisions", "Open tasks", "Values")
    reply = "Memory so far.\n## Values:\n- Budget: 2400 EUR (was 2300)\n## User statements\n- x"
    text = carry_sections(reply, PREVIOUS, sections)
    preamble, blocks = split_sections(text)
    assert preamble == "Memory so far."
    assert list(blocks) == ["user statements", "decisions", "open tasks", "values"]
    assert "2400 EUR" in blocks["values"] and "2300 EUR\n" not in blocks["values"]
    assert carry_sections(reply, None, sections) == reply  # a first summary has nothing to keep
    assert carry_sections(reply, PREVIOUS, ()) == reply  # a free-text prompt is not checked
    emptied = "## Open tasks\n- (none)"
    assert "Book the hotel" not in carry_sections(emptied, PREVIOUS, ("Open tasks",))


@pytest.mark.parametrize(
    ("sections", "message"),
    [("[' ']", "one non-empty line"), ("['a', 'a']", "named once each")],
)
def test_bad_sections_are_named(sections: str, message: str) -> None:
    text = (
        "name: p\nversion: 1\nsections: " + sections + "\nmessages:\n  - role: user\n"
        "    content: '{previous_summary} {transcript} {max_tokens}'\n"
    )
    with pytest.raises(PromptError, match=message):
        parse_prompt(text)
