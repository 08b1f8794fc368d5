from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from summem._flow import run_async, run_sync
from summem.errors import ConfigurationError
from summem.messages import Message, SummaryInfo
from summem.summarizers.base import Summarizer, SummaryOutput, SummaryRequest
from summem.summarizers.extractive.layout import HEADER_RE, read_fact_line, summary_lines
from summem.summarizers.extractive.summarizer import FORMAT, ExtractiveSummarizer
from summem.tokens.base import ApproxCounter, TokenCounter
from tests.summarizers.extractive.readback import full_lines


class WordCounter:
    """One token per whitespace-separated word: a second, very different tokenizer."""

    key = "test-words"
    request_overhead = 0

    def count_text(self, text: str) -> int:
        return len(text.split())

    def count_message(self, message: Message) -> int:
        return 3 + self.count_text(message.text)


def msg(id: str, role: str, content: Any, **extra: Any) -> Message:
    return Message.from_openai({"role": role, "content": content, **extra}, id=id)


def call_msg(id: str, call_id: str, name: str, args: dict[str, Any]) -> Message:
    return msg(
        id,
        "assistant",
        None,
        tool_calls=[
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
        ],
    )


FILLER = [
    "Hi there!",
    "Hello! How can I help you today?",
    "ok",
    "Thanks!",
    "Sounds good, thank you!",
    "Great, thanks a lot.",
    "You're welcome!",
    "Is there anything else I can help with?",
    "Okay.",
    "Let me check.",
]

PLANTED = {
    "p_order": ("user", "My order AX-4471 hasn't arrived yet."),
    "p_allergy": ("user", "I'm allergic to peanuts."),
    "p_colour": ("user", "My favourite colour is teal."),
    "p_refund": ("assistant", "We'll refund $42.50 to your Visa card by Friday."),
    "p_seat": ("user", "I prefer window seats on long flights."),
    "p_sister": ("user", "My sister Melanie lives in Berlin."),
    "p_table": ("user", "Can you book the table for 7:30 pm on June 14?"),
}


def conversation(filler_rounds: int = 3) -> list[Message]:
    out: list[Message] = []
    n = 0
    for key, (role, text) in PLANTED.items():
        for _ in range(filler_rounds):
            out.append(msg(f"f{n}", "user" if n % 2 else "assistant", FILLER[n % len(FILLER)]))
            n += 1
        extra = {"name": "Caroline", "timestamp": "2023-05-08"} if key == "p_order" else {}
        out.append(msg(key, role, text, **extra))
    out.append(call_msg("a_call", "c1", "lookup_order", {"order_id": "AX-4471"}))
    result = {
        "order_id": "AX-4471",
        "status": "in transit",
        "carrier": "DHL",
        "eta": "2023-05-10",
        "weight_kg": 1.5,
        "gift": False,
    }
    out.append(msg("t_res", "tool", json.dumps(result), tool_call_id="c1"))
    out.append(msg("f_end", "user", "Thanks, bye!"))
    return out


def request(
    messages: list[Message],
    max_tokens: int,
    counter: TokenCounter | None = None,
    **kw: Any,
) -> SummaryRequest:
    return SummaryRequest(
        messages=messages,
        previous_summary=kw.pop("previous_summary", None),
        max_tokens=max_tokens,
        token_counter=counter or ApproxCounter(),
        **kw,
    )


def summarize(req: SummaryRequest, **kw: Any) -> SummaryOutput:
    return run_sync(ExtractiveSummarizer(**kw).summarize(req))


def provenance(out: SummaryOutput) -> dict[int, list[str]]:
    return {p["line"]: p["ids"] for p in out.extra["provenance"]}


def fact_lines(text: str) -> list[str]:
    """The summary's fact lines, without its date headers."""
    return [line for line in full_lines(text) if not line.startswith("[")]


# -- what it keeps ---------------------------------------------------------------------------


def test_implements_the_protocol() -> None:
    s = ExtractiveSummarizer()
    assert isinstance(s, Summarizer)
    assert s.name == "extractive"
    assert ExtractiveSummarizer(name="x").name == "x"


def test_keeps_planted_facts_and_drops_filler() -> None:
    msgs = conversation()
    out = summarize(request(msgs, 400))
    text = out.text
    for needle in [
        "AX-4471",
        "peanuts",
        "teal",
        "$42.50",
        "Friday",
        "window seats",
        "Melanie",
        "Berlin",
        "7:30 pm on June 14",
        "lookup_order(order_id=AX-4471)",
        "status=in transit",
        "carrier=DHL",
        "eta=2023-05-10",
        "weight_kg=1.5",
        "gift=false",
    ]:
        assert needle in text, needle
    for filler in [*FILLER, "Thanks, bye!"]:
        assert f": {filler}" not in text
    assert out.summarizer == "extractive"
    assert out.extra["format"] == FORMAT


def test_lines_carry_speaker_and_facts_their_date() -> None:
    lines = full_lines(summarize(request(conversation(), 400)).text)
    # Facts before the first dated message have no date; the rest are grouped under it.
    at = lines.index("[2023-05-08]")
    assert lines[at + 1] == "- Caroline: My order AX-4471 hasn't arrived yet."
    assert "- user: I'm allergic to peanuts." in lines[at:]
    assert "- assistant: We'll refund $42.50 to your Visa card by Friday." in lines[at:]
    assert lines[-1] == (
        "- tool: lookup_order(order_id=AX-4471) -> status=in transit; carrier=DHL; "
        "eta=2023-05-10; weight_kg=1.5; gift=false"
    )
    assert all(line.startswith("- ") for line in lines if line != "[2023-05-08]")


def test_it_is_not_truncation_and_compresses() -> None:
    msgs = conversation(filler_rounds=10)
    counter = ApproxCounter()
    out = summarize(request(msgs, 2000, counter))
    span = sum(counter.count_message(m) for m in msgs)
    assert counter.count_text(out.text) < span / 2
    # the first and the last messages (filler) are gone, facts from the middle stay
    assert "Hi there" not in out.text
    assert "bye" not in out.text
    assert "Melanie" in out.text


def test_preferences_and_codes_win_under_a_tight_budget() -> None:
    msgs = conversation(filler_rounds=2)
    out = summarize(request(msgs, 45))
    assert "AX-4471" in out.text
    assert "peanuts" in out.text
    assert not any(f": {filler}" in out.text for filler in FILLER)
    assert ApproxCounter().count_text(out.text) <= 45


def test_must_keep_comes_first() -> None:
    out = summarize(request(conversation(), 300, must_keep=["Ticket ZZ-9 stays open"]))
    assert full_lines(out.text)[0] == "- Ticket ZZ-9 stays open"
    assert provenance(out)[0] == []


def test_focus_boosts_matching_sentences() -> None:
    msgs = [
        msg("a", "user", "The blue widget needs a battery soon."),
        msg("b", "user", "The green fence wants paint shortly."),  # no word of the first
    ]
    plain = summarize(request(msgs, 14)).text
    focused = summarize(request(msgs, 14, focus="blue widget")).text
    assert "fence" in plain  # the more recent one wins a tie
    assert "widget" in focused
    assert plain != focused


# -- what a line says, and when --------------------------------------------------------------


def test_a_leading_session_date_is_the_timestamp_not_the_content() -> None:
    msgs = [
        msg(
            "a",
            "user",
            "[1:56 pm on 8 May, 2023] Hey Mel! I went to a support group yesterday.",
            name="Caroline",
        ),
        msg("b", "assistant", "Hey Caroline! Good to see you!", name="Melanie"),
        msg("c", "assistant", "I painted a lake sunrise last year.", name="Melanie"),
        msg("d", "user", "[7:55 pm on 9 June, 2023] Hi Melanie!", name="Caroline"),
        msg(
            "e",
            "user",
            "My school event last week was about my transgender journey.",
            name="Caroline",
        ),
    ]
    out = summarize(request(msgs, 300))
    assert full_lines(out.text) == [
        "[8 May 2023]",
        "- Caroline: I went to a support group yesterday.",
        "- Melanie: I painted a lake sunrise last year.",
        "[9 June 2023]",
        "- Caroline: My school event last week was about my transgender journey.",
    ]
    assert provenance(out) == {1: ["a"], 2: ["c"], 4: ["e"]}


def test_a_bracket_that_is_not_a_date_stays_content() -> None:
    msgs = [msg("a", "user", "[urgent] Order AX-4471 must ship to Lisbon by Friday.")]
    assert summarize(request(msgs, 100)).text == (
        "- user: [urgent] Order AX-4471 must ship to Lisbon by Friday."
    )


def test_greetings_filler_and_bare_questions_are_dropped() -> None:
    msgs = [
        msg("g", "user", "Hey Mel, long time no chat! How have you been?", name="Caroline"),
        msg("p", "assistant", "Wow, that's amazing! I'm so proud of you!", name="Melanie"),
        msg("q", "assistant", "What made you pick it?", name="Melanie"),
        msg("f", "user", "I adopted a puppy named Biscuit on Saturday.", name="Caroline"),
        msg("r", "user", "Can you book the table for 7:30 pm on June 14?", name="Caroline"),
    ]
    lines = full_lines(summarize(request(msgs, 300)).text)
    assert lines == [
        "- Caroline: I adopted a puppy named Biscuit on Saturday.",
        "- Caroline: Can you book the table for 7:30 pm on June 14?",  # a request with a date
    ]


def test_sentences_lose_interjections_and_forms_of_address() -> None:
    msgs = [
        msg(
            "a",
            "user",
            "Yeah, Mel, I ran a charity race for mental health last Saturday!",
            name="Caroline",
        ),
        msg(
            "b", "assistant", "Oh wow, my kids start school in September, Caroline.", name="Melanie"
        ),
    ]
    assert fact_lines(summarize(request(msgs, 300)).text) == [
        "- Caroline: I ran a charity race for mental health last Saturday!",
        "- Melanie: My kids start school in September.",
    ]


def test_tool_results_are_compact_and_do_not_repeat_the_call() -> None:
    args = {"order_id": "BW-58214-K", "amount": 37.5, "currency": "GBP", "reason": "damaged"}
    result = {
        "refund_id": "RF-22907",
        "amount": 37.5,
        "currency": "GBP",
        "status": "approved",
        "expected_by": "2025-03-21",
    }
    msgs = [
        call_msg("a", "c1", "create_refund", args),
        msg("t", "tool", json.dumps(result), tool_call_id="c1"),
    ]
    out = summarize(request(msgs, 200))
    assert out.text == (
        "- tool: create_refund(order_id=BW-58214-K, amount=37.5, currency=GBP, reason=damaged)"
        " -> refund_id=RF-22907; status=approved; expected_by=2025-03-21"
    )
    assert provenance(out) == {0: ["a", "t"]}


def test_a_message_is_represented_by_its_best_sentence_first() -> None:
    text = (
        "My sister Melanie moved to Berlin in March 2024. "
        "Our old neighbour Tomasz still runs the bakery on the corner of our street."
    )
    msgs = [
        msg("a", "assistant", text),
        msg("b", "assistant", "I adopted a cat named Luna in June."),
    ]
    counter = WordCounter()
    tight = summarize(request(msgs, 21, counter)).text
    # the second message's fact outranks the first message's second sentence
    assert fact_lines(tight) == [
        "- assistant: My sister Melanie moved to Berlin in March 2024.",
        "- assistant: I adopted a cat named Luna in June.",
    ]
    roomy = summarize(request(msgs, 200, counter)).text
    assert "- assistant: Our old neighbour Tomasz still runs the bakery" in "\n".join(
        full_lines(roomy)
    )


# -- budget ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "counter", [ApproxCounter(), WordCounter(), ApproxCounter(chars_per_token=2.5)]
)
def test_never_exceeds_the_exact_budget(counter: TokenCounter) -> None:
    msgs = conversation()
    full = summarize(request(msgs, 10_000, counter)).text
    n = counter.count_text(full)
    for budget in [*range(1, 40), *range(n - 10, n + 3)]:
        out = summarize(request(msgs, budget, counter))
        assert counter.count_text(out.text) <= budget, budget
    at_n = summarize(request(msgs, n, counter)).text
    assert counter.count_text(at_n) >= n * 0.8  # the budget is used, not wasted


class SuperAdditiveCounter(WordCounter):
    """Joining lines costs more than the lines alone: per-line estimates undercount."""

    key = "test-superadditive"

    def count_text(self, text: str) -> int:
        return len(text.split()) + text.count("\n") ** 2


def test_budget_holds_even_when_line_costs_do_not_add_up() -> None:
    counter = SuperAdditiveCounter()
    msgs = conversation()
    for budget in range(1, 120, 3):
        out = summarize(request(msgs, budget, counter))
        assert counter.count_text(out.text) <= budget, budget
    assert summarize(request(msgs, 100, counter)).text.count("\n") >= 3


def test_output_at_a_budget_is_a_subset_of_the_full_output() -> None:
    msgs = conversation()
    full = set(full_lines(summarize(request(msgs, 10_000)).text))
    part = full_lines(summarize(request(msgs, 60)).text)
    assert part
    assert set(part) <= full


def test_all_filler_span_gives_a_note() -> None:
    msgs = [msg(f"f{i}", "user", text) for i, text in enumerate(FILLER)]
    out = summarize(request(msgs, 100))
    assert out.text == "- 10 messages with no lasting facts (greetings, thanks, small talk)."
    ids = [m.id for m in msgs]  # within the cap: the first and the latest, the rest counted
    assert provenance(out)[0] == [ids[0], *ids[3:]]
    assert out.extra["provenance"][0]["more"] == 2


def test_a_single_huge_sentence_is_clipped_to_fit() -> None:
    msgs = [msg("big", "user", "Order " + " ".join(f"AX-{i}" for i in range(400)))]
    out = summarize(request(msgs, 30))
    assert out.text.startswith("- user: Order AX-0")
    assert 0 < ApproxCounter().count_text(out.text) <= 30
    assert provenance(out) == {0: ["big"]}


# -- determinism, dedup, provenance ------------------------------------------------------------


def test_deterministic() -> None:
    a = summarize(request(conversation(), 150))
    b = summarize(request(conversation(), 150))
    assert a == b


async def test_async_driver_gives_the_same_result() -> None:
    req = request(conversation(), 150)
    assert await run_async(ExtractiveSummarizer().summarize(req)) == summarize(req)


def test_repeats_are_merged_with_all_their_ids() -> None:
    msgs = [
        msg("a", "user", "My order AX-4471 hasn't arrived yet."),
        msg("b", "assistant", "Sorry about that."),
        msg("c", "user", "my order AX-4471 hasn't arrived yet!"),
        msg("d", "user", "Again: my order AX-4471 still hasn't arrived yet."),
        msg("e", "user", "The total was 42.50 dollars."),
        msg("f", "user", "The total was 45.00 dollars."),
    ]
    out = summarize(request(msgs, 500))
    lines = full_lines(out.text)
    assert sum("AX-4471" in line for line in lines) == 1
    prov = provenance(out)
    order_line = next(i for i, line in enumerate(lines) if "AX-4471" in line)
    assert prov[order_line] == ["a", "c", "d"]
    # a different number is different information: both totals stay
    assert any("42.50" in line for line in lines)
    assert any("45.00" in line for line in lines)


def test_provenance_points_at_the_source_messages() -> None:
    msgs = conversation()
    by_id = {m.id: m for m in msgs}
    out = summarize(request(msgs, 400))
    lines = full_lines(out.text)
    prov = out.extra["provenance"]
    # one entry per fact line, none for date headers
    assert [p["line"] for p in prov] == [i for i, x in enumerate(lines) if x.startswith("- ")]
    assert all(x.startswith("[") for i, x in enumerate(lines) if i not in provenance(out))
    for entry in prov:
        line = lines[entry["line"]]
        if "lookup_order" in line:
            assert entry["ids"] == ["a_call", "t_res"]
            continue
        body = line.split(": ", 1)[1]
        assert entry["ids"], line
        for id in entry["ids"]:
            assert body in by_id[id].text


def test_unanswered_call_is_kept() -> None:
    msgs = [
        msg("u", "user", "Please cancel booking BK-77."),
        call_msg("a", "c9", "cancel_booking", {"booking_id": "BK-77"}),
    ]
    out = summarize(request(msgs, 200))
    assert "- assistant: called cancel_booking(booking_id=BK-77)" in full_lines(out.text)


def test_tool_result_that_is_not_json_or_a_list() -> None:
    msgs = [
        call_msg("a", "c1", "search", {"q": "hotels"}),
        msg("t", "tool", "Found 3 hotels near the Louvre, cheapest 120 EUR.", tool_call_id="c1"),
        call_msg("a2", "c2", "list", {}),
        msg(
            "t2",
            "tool",
            json.dumps([{"sku": "B-1", "qty": 2}, {"sku": "B-2", "qty": 1}]),
            tool_call_id="c2",
        ),
    ]
    text = summarize(request(msgs, 300)).text
    assert "search(q=hotels) -> Found 3 hotels near the Louvre, cheapest 120 EUR." in text
    assert "list() -> [0].sku=B-1; [0].qty=2; [1].sku=B-2; [1].qty=1" in text  # tables: opt-in


# -- previous summary ------------------------------------------------------------------------


def test_integrates_the_previous_summary_and_keeps_its_ids() -> None:
    first = summarize(request(conversation(), 400))
    info = SummaryInfo(extra=first.extra)
    new = [
        msg("n1", "user", "Hello again."),
        msg("n2", "user", "I moved to Lisbon in March 2024."),
        msg("n3", "assistant", "Noted, we'll ship to Lisbon from now on."),
    ]
    second = summarize(request(new, 800, previous_summary=first.text, previous_info=info))
    lines = full_lines(second.text)
    first_lines = full_lines(first.text)
    assert lines[: len(first_lines)] == first_lines  # carried verbatim, old first
    assert "- user: I moved to Lisbon in March 2024." in lines
    prov = provenance(second)
    old = provenance(first)
    assert old and all(prov[i] == ids for i, ids in old.items())
    assert prov[lines.index("- user: I moved to Lisbon in March 2024.")] == ["n2"]


def test_previous_info_may_be_missing_or_foreign() -> None:
    # The format before date headers (a date on each line) is still read.
    prev = "- user: likes tea\n- [2023-01-01] Bob: Flight LH-123 lands at 9:40."
    for info in (None, SummaryInfo(), SummaryInfo(extra={"provenance": "junk"}), object()):
        out = summarize(
            request([msg("a", "user", "ok")], 200, previous_summary=prev, previous_info=info)
        )
        assert full_lines(out.text) == [
            "- user: likes tea",
            "[2023-01-01]",
            "- Bob: Flight LH-123 lands at 9:40.",
        ]
        assert all(ids == [] for ids in provenance(out).values())


def test_prose_summary_from_an_llm_is_split_into_fact_lines() -> None:
    prev = (
        "## Summary\n"
        "Caroline ordered AX-4471 on May 3. She prefers window seats.\n"
        "* Budget: 500 EUR"
    )
    out = summarize(request([msg("a", "user", "ok thanks")], 300, previous_summary=prev))
    lines = full_lines(out.text)
    assert "- Caroline ordered AX-4471 on May 3." in lines
    assert "- She prefers window seats." in lines
    assert "- Budget: 500 EUR" in lines
    assert not any("Summary" in line for line in lines)


ITEMS = ("tent", "stove", "kayak", "lamp", "boots", "jacket", "rope", "map", "pack", "mug")
COLOURS = ("red", "blue", "green", "black", "white", "grey")
VERBS = [
    "arrived",
    "shipped",
    "broke",
    "sold",
    "returned",
    "matched",
    "leaked",
    "faded",
    "ripped",
    "cracked",
    "fitted",
]
PLACES = ("garage", "attic", "van", "office", "shed", "porch", "cabin")


def test_new_facts_cannot_push_out_every_old_fact() -> None:
    # distinct sentences (a frame repeated over and over would be discounted as a template)
    prev = "\n".join(f"- user: The {ITEMS[i]} on order OLD-{i} was confirmed." for i in range(10))
    new = [
        msg(
            f"n{i}",
            "user",
            f"{COLOURS[i % 6].title()} {ITEMS[i // 6]} NEW-{i} costs {i}.99 {ITEMS[i % 10]} "
            f"dollars on May {i % 28 + 1}, {VERBS[i % 11]} {PLACES[i % 7]}.",
        )
        for i in range(60)
    ]
    counter = ApproxCounter()
    shared = summarize(request(new, 200, counter, previous_summary=prev))
    old_kept = [line for line in shared.text.splitlines() if "OLD-" in line]
    new_kept = [line for line in shared.text.splitlines() if "NEW-" in line]
    assert len(old_kept) >= 3
    assert len(new_kept) >= 3
    assert counter.count_text(shared.text) <= 200
    # the reserved share is what protects them: without it, old facts lose
    greedy = summarize(request(new, 200, counter, previous_summary=prev), carry_share=0.0)
    assert sum("OLD-" in line for line in greedy.text.splitlines()) < len(old_kept)


def test_scores_travel_with_the_summary() -> None:
    first = summarize(request(conversation(), 400))
    scores = {e["line"]: e["score"] for e in first.extra["provenance"]}
    assert scores and all(score > 0 for score in scores.values())
    info = SummaryInfo(extra=first.extra)
    second = summarize(
        request([msg("n", "user", "ok")], 400, previous_summary=first.text, previous_info=info)
    )
    assert second.text == first.text
    assert second.extra["provenance"] == first.extra["provenance"]


def test_a_stored_score_decides_an_old_fact_s_rank() -> None:
    prev = "- user: weak looking line about tea\n- user: My order AX-4471 ships Friday."
    info = SummaryInfo(
        extra={"provenance": [{"line": 0, "ids": ["x"], "score": 50.0}, {"line": 1, "ids": ["y"]}]}
    )
    counter = WordCounter()
    out = summarize(
        request([msg("n", "user", "ok")], 8, counter, previous_summary=prev, previous_info=info)
    )
    assert out.text == "- user: weak looking line about tea"  # the stored score wins
    out = summarize(request([msg("n", "user", "ok")], 8, counter, previous_summary=prev))
    assert out.text == "- user: My order AX-4471 ships Friday."  # rescored without it


def test_under_pressure_the_weakest_old_facts_go_not_the_oldest() -> None:
    strengths = [5.0, 1.0, 4.0, 0.5, 3.0, 2.0]
    prev = "\n".join(f"- user: Old fact {i} is here." for i in range(len(strengths)))
    info = SummaryInfo(
        extra={
            "provenance": [
                {"line": i, "ids": [f"p{i}"], "score": score} for i, score in enumerate(strengths)
            ]
        }
    )
    counter = WordCounter()  # 7 words an old line, 12 the new one
    new = [msg("n", "user", "My order AX-4471 ships on 14 June 2024 to Lisbon.")]
    out = summarize(request(new, 33, counter, previous_summary=prev, previous_info=info))
    assert fact_lines(out.text) == [
        "- user: Old fact 0 is here.",
        "- user: Old fact 2 is here.",
        "- user: Old fact 4 is here.",
        "- user: My order AX-4471 ships on 14 June 2024 to Lisbon.",
    ]


@pytest.mark.parametrize("new_share", [0.0, 0.1])
def test_strong_old_facts_survive_many_rounds_of_new_chatter(new_share: float) -> None:
    counter = ApproxCounter()
    summarizer = ExtractiveSummarizer(new_share=new_share)
    first = [
        msg("m0", "user", "My order AX-4471 ships to 27 Calder Row on 14 June 2024."),
        msg("m1", "user", "The weather has been a bit grey lately."),
    ]
    out = run_sync(summarizer.summarize(request(first, 60, counter)))
    for cycle in range(1, 11):
        span = [
            msg(
                f"c{cycle}a",
                "user",
                f"We talked about hiking boots and trail snacks {cycle} times.",
            ),
            msg(f"c{cycle}b", "assistant", "The lighter boots are usually the better pick."),
        ]
        req = request(
            span, 60, counter, previous_summary=out.text, previous_info=SummaryInfo(extra=out.extra)
        )
        out = run_sync(summarizer.summarize(req))
        lines = fact_lines(out.text)
        assert lines[0] == "- user: My order AX-4471 ships to 27 Calder Row on 14 June 2024."
        assert provenance(out)[0] == ["m0"]
        if new_share:  # a new share promises the new span its best fact, however weak
            assert any(f"{cycle} times" in line for line in lines)
        assert counter.count_text(out.text) <= 60


def test_the_new_span_keeps_a_share_when_old_facts_are_stronger() -> None:
    prev = "\n".join(f"- user: Order OLD-{i} ships on 1 May 2024." for i in range(20))
    info = SummaryInfo(
        extra={"provenance": [{"line": i, "ids": [], "score": 99.0} for i in range(20)]}
    )
    new = [msg("n", "user", "I like green tea.")]
    counter = WordCounter()  # 9 words the first old line, 8 the others (one label per run):
    req = request(new, 50, counter, previous_summary=prev, previous_info=info)  # 6 fill it
    assert "- user: I like green tea." in full_lines(summarize(req, new_share=0.1).text)
    assert "green tea" not in summarize(req, new_share=0.0).text
    assert "green tea" not in summarize(req).text  # by default, new facts compete on score


def test_old_facts_give_room_back_when_there_is_nothing_new() -> None:
    prev = "\n".join(f"- user: Old fact number {i} about order OLD-{i}." for i in range(10))
    out = summarize(request([msg("a", "user", "thanks!")], 500, previous_summary=prev))
    assert full_lines(out.text) == prev.splitlines()


def test_bad_configuration() -> None:
    with pytest.raises(ConfigurationError):
        ExtractiveSummarizer(carry_share=1.5)
    with pytest.raises(ConfigurationError):
        ExtractiveSummarizer(new_share=-0.1)
    with pytest.raises(ConfigurationError):
        ExtractiveSummarizer(max_line_chars=5)


# -- properties ------------------------------------------------------------------------------

WORDS = [
    "hello",
    "thanks",
    "ok",
    "order",
    "AX-4471",
    "B-12",
    "42.50",
    "Friday",
    "June",
    "14",
    "Melanie",
    "Berlin",
    "I",
    "prefer",
    "like",
    "allergic",
    "we'll",
    "decided",
    "agreed",
    "the",
    "a",
    "to",
    "is",
    "?",
    ".",
    "!",
    "</transcript>",
    "{x}",
    "\n",
    "2023-05-08",
    "remind",
    "me",
    "my",
    "favourite",
    "é",
    "日本",
]
sentence = st.lists(st.sampled_from(WORDS), min_size=0, max_size=14).map(" ".join)
message_spec = st.tuples(
    st.sampled_from(["user", "assistant", "tool-pair"]), sentence, st.booleans()
)


@st.composite
def spans(draw: st.DrawFn) -> tuple[list[Message], str | None, SummaryInfo | None]:
    specs = draw(st.lists(message_spec, min_size=1, max_size=25))
    msgs: list[Message] = []
    for i, (kind, text, dated) in enumerate(specs):
        extra = {"timestamp": f"2023-05-{i % 28 + 1:02d}"} if dated else {}
        if kind == "tool-pair":
            msgs.append(call_msg(f"a{i}", f"c{i}", "lookup", {"q": text}))
            msgs.append(msg(f"t{i}", "tool", json.dumps({"v": text, "n": i}), tool_call_id=f"c{i}"))
        else:
            msgs.append(
                msg(f"m{i}", kind, text or "ok", name="Bob" if i % 3 == 0 else None, **extra)
            )
    prev_lines = draw(st.lists(sentence, max_size=6))
    if not prev_lines:
        return msgs, None, None
    prev = "\n".join(f"- user: {line}" if j % 2 else line for j, line in enumerate(prev_lines))
    info = SummaryInfo(
        extra={"provenance": [{"line": j, "ids": [f"p{j}"]} for j in range(len(prev_lines))]}
    )
    return msgs, prev, info


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spans(), st.integers(min_value=1, max_value=300), st.sampled_from(["approx", "words"]))
def test_property_within_budget_and_ids_are_real(
    span: tuple[list[Message], str | None, SummaryInfo | None], budget: int, kind: str
) -> None:
    msgs, prev, info = span
    counter: TokenCounter = ApproxCounter() if kind == "approx" else WordCounter()
    out = summarize(request(msgs, budget, counter, previous_summary=prev, previous_info=info))
    assert counter.count_text(out.text) <= budget
    lines = full_lines(out.text) if out.text else []
    facts = [i for i, line in enumerate(lines) if line.startswith("- ")]
    blanks = [i for i, line in enumerate(lines) if not line]
    headers = [i for i, line in enumerate(lines) if i not in facts and i not in blanks]
    # a header is a date opening a group of at least one fact, never the same date twice in a row
    assert all(HEADER_RE.match(lines[i]) and i + 1 in facts for i in headers)
    # a blank line only ends a run of labels before a line that has none
    assert all(i + 1 in facts and read_fact_line(lines[i + 1])[2] is None for i in blanks)
    assert all(lines[a] != lines[b] for a, b in itertools.pairwise(headers))
    prov = out.extra["provenance"]
    assert [p["line"] for p in prov] == facts
    allowed = {m.id for m in msgs} | {f"p{j}" for j in range(10)}
    for entry in prov:
        assert set(entry["ids"]) <= allowed
        assert len(entry["ids"]) == len(set(entry["ids"]))
    # the output parses back into exactly its fact lines, verbatim, with their dates
    day, expected = None, []
    for line in lines:
        if line.startswith("["):
            day = line[1:-1]
        elif line:
            expected.append((day, line))
    got = summary_lines(out.text, shared_labels=True)
    assert [(d, line) for _, d, line, _ in got] == expected


def test_a_fact_restated_on_another_day_is_not_kept_twice() -> None:
    prev = "- [2023-05-01] user: I'm allergic to peanuts."
    info = SummaryInfo(extra={"provenance": [{"line": 0, "ids": ["old"]}]})
    new = [msg("n", "user", "I'm allergic to peanuts.", timestamp="2023-06-01")]
    out = summarize(request(new, 200, previous_summary=prev, previous_info=info))
    assert out.text == "[2023-05-01]\n- user: I'm allergic to peanuts."
    assert provenance(out) == {1: ["old", "n"]}


def _repeating_rounds(rounds: int) -> SummaryOutput:
    """``rounds`` reductions in a row, each span saying the same fact again among filler."""
    summarizer = ExtractiveSummarizer()
    text: str | None = None
    info: SummaryInfo | None = None
    out: SummaryOutput | None = None
    n = 0
    for _ in range(rounds):
        span = []
        for j in range(6):
            n += 1
            said = "I'm allergic to peanuts." if j == 0 else f"Okay number {n % 3} thanks."
            span.append(msg(f"m{n}", "user", said))
        req = request(span, 200, previous_summary=text, previous_info=info)
        out = run_sync(summarizer.summarize(req))
        text, info = out.text, SummaryInfo(extra=out.extra)
    assert out is not None
    return out


def test_a_sentence_repeated_all_session_records_a_bounded_provenance() -> None:
    from summem.summarizers.extractive.selection import MAX_LINE_IDS

    short, long = _repeating_rounds(12), _repeating_rounds(120)
    for out in (short, long):
        for entry in out.extra["provenance"]:
            assert len(entry["ids"]) <= MAX_LINE_IDS
            assert len(entry.get("supersedes", ())) <= MAX_LINE_IDS
            assert len(entry.get("marks", ())) <= MAX_LINE_IDS
    peanuts = next(i for i, line in enumerate(long.text.splitlines()) if "peanuts" in line)
    entry = next(e for e in long.extra["provenance"] if e["line"] == peanuts)
    assert entry["ids"][0] == "m1"  # where it was first said
    assert entry["ids"][-1] == f"m{6 * 119 + 1}"  # and the latest time
    assert entry["more"] == 120 - MAX_LINE_IDS  # the repeats left out, counted
    ids = [sum(len(e["ids"]) for e in out.extra["provenance"]) for out in (short, long)]
    assert ids[1] <= ids[0]  # ten times the history, no more ids


def test_a_record_written_before_the_cap_is_read_back_within_it() -> None:
    from summem.summarizers.extractive.selection import MAX_LINE_IDS

    many = [f"old{i}" for i in range(500)]
    info = SummaryInfo(extra={"provenance": [{"line": 0, "ids": many, "score": 50.0}]})
    req = request(
        [msg("new", "user", "Okay thanks.")],
        200,
        previous_summary="- user: I'm allergic to peanuts.",
        previous_info=info,
    )
    out = summarize(req)
    entry = next(e for e in out.extra["provenance"] if "old0" in e["ids"])
    assert entry["ids"] == ["old0", *many[-(MAX_LINE_IDS - 1) :]]
    assert entry["more"] == 500 - MAX_LINE_IDS


def test_a_run_of_one_speakers_lines_carries_the_label_once() -> None:
    msgs = [
        msg("a", "user", "My order AX-4471 ships to 27 Calder Row on 14 June 2024."),
        msg("b", "user", "Change of plan: send it to 9 Elm Street on 20 June 2024."),
        msg("c", "user", "My manager Niamh Szymanski approves anything over 500 pounds."),
        msg("d", "user", "I never fly budget airlines, so skip those in the travel options."),
    ]
    out = summarize(request(msgs, 500))
    lines = out.text.splitlines()
    assert lines[0].startswith("- user: My order AX-4471")
    assert lines[1].startswith("- user: Change of plan:")  # a body that would read as a label
    assert lines[2].startswith("- My manager Niamh Szymanski")
    assert lines[3].startswith("- I never fly budget airlines")
    # the next round reads every line as the user's, with its own provenance
    again = summarize(
        request([msg("e", "user", "thanks!")], 500, previous_summary=out.text, previous_info=out)
    )
    assert full_lines(again.text) == full_lines(out.text)
    assert provenance(again) == provenance(out)


def test_another_summarizers_bullets_lend_no_label_to_the_next_line() -> None:
    llm = "## Mood\n- Tone: friendly\n## Timeline\n- The user moved to Lisbon on 3 May 2023."
    info = SummaryInfo(extra={"usage": {"input_tokens": 10}})  # an LLM's: no extractive layout
    new = [msg("n", "user", "Book the dentist for 9 June.")]
    out = summarize(request(new, 200, ApproxCounter(), previous_summary=llm, previous_info=info))
    assert "Tone: The user moved" not in out.text
    assert "The user moved to Lisbon on 3 May 2023." in out.text


def test_the_cap_keeps_the_ids_a_reply_line_was_made_from() -> None:
    from summem.summarizers.extractive.selection import MAX_LINE_IDS, bound_ids, make_fact

    line = "- assistant: Last quarter it was 30.51, in reply to user: What's on my list?"
    fact = make_fact(line, None, 5.0, ["u0", "a0"], (2, 1, 0), frozenset())
    fact.own = 2  # the question and the reply
    for i in range(1, 20):  # the question asked again and again, merged as repeats
        fact.merge_ids([f"u{i}"])
    assert fact.ids[:2] == ["u0", "a0"] and fact.ids[-1] == "u19"
    assert len(fact.ids) == MAX_LINE_IDS and fact.more == 21 - MAX_LINE_IDS
    assert bound_ids([f"x{i}" for i in range(20)])[0][:2] == ["x0", "x13"]  # one own id: as before
    many = ["u0", "a0", *(f"u{i}" for i in range(1, 40))]
    info = SummaryInfo(extra={"provenance": [{"line": 0, "ids": many, "own": 2, "score": 9.0}]})
    out = summarize(
        request([msg("n", "user", "Okay thanks.")], 200, previous_summary=line, previous_info=info)
    )
    entry = next(e for e in out.extra["provenance"] if "u0" in e["ids"])
    assert entry["ids"][:2] == ["u0", "a0"] and entry["own"] == 2  # read back, written again
