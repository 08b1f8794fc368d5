"""Templated sentences: discounted on their third occasion, remembered across reductions."""

from __future__ import annotations

from summem._flow import run_sync
from summem.messages import Message
from summem.summarizers.base import SummaryRequest
from summem.summarizers.extractive.selection import Fact, make_fact
from summem.summarizers.extractive.summarizer import ExtractiveSummarizer
from summem.summarizers.extractive.templates import (
    MEMORY_SIZE,
    POWER,
    Template,
    discount_templates,
    frame_of,
    read_memory,
    write_memory,
)
from summem.tokens.base import ApproxCounter

BATCH = "Batch {c} of the {p} was restocked on {d} by the warehouse team."
ITEMS = (
    ("LV-25119", "trekking pole set", "21 October 2027"),
    ("SB-18697", "sleeping pad", "2 March 2025"),
    ("PE-14024", "merino base layer", "22 July 2027"),
    ("WY-77649", "trail runner", "15 October 2027"),
)


def _fact(line: str, order: int = 2, pos: int = 0, priority: float = 5.0) -> Fact:
    return make_fact(line, None, priority, [f"m{pos}"], (order, pos, 0), frozenset())


def _batch(i: int, speaker: str = "assistant", order: int = 2) -> Fact:
    """The ``i``-th filler instance, at message ``2 * i``: another message of its own between."""
    c, p, d = ITEMS[i]
    return _fact(f"- {speaker}: {BATCH.format(c=c, p=p, d=d)}", order, 2 * i)


def _other(i: int, speaker: str = "assistant") -> Fact:
    """Another fact of the speaker's, at message ``2 * i + 1``, between two instances."""
    line = f"- {speaker}: Your parcel leaves the depot this afternoon, case {i}."
    return _fact(line, pos=2 * i + 1)


KIDS = (
    "My son Jake is 12 and plays football on Saturdays at the park.",
    "My daughter Maya is 9 and plays chess on Saturdays at the library.",
    "My son Leo is 6 and plays tennis on Saturdays at the club.",
    "My daughter Ava is 4 and plays piano on Saturdays at the school.",
)


def _kids(order: int = 2) -> list[Fact]:
    """A user listing their children one message after another (the assistant's between)."""
    return [_fact(f"- user: {t}", order, 2 * i) for i, t in enumerate(KIDS)]


def test_a_frame_leaves_out_values_months_and_names() -> None:
    frame = frame_of("Reviewer Dana Reyes gave the tent 9 out of 10 on 4 May after a 3-day test.")
    kept = ("reviewer", "gave", "the", "tent", "out", "of", "on", "after", "a", "test")
    assert frame == frozenset(kept)


def test_the_third_occasion_makes_a_template_and_each_instance_is_discounted() -> None:
    two = [_batch(0), _other(0), _batch(1)]
    assert discount_templates(two, []) and all(f.priority == 5.0 for f in two)
    three = [_batch(0), _other(0), _batch(1), _other(1), _batch(2)]
    discount_templates(three, [])
    third = 5.0 / 2**POWER
    assert [f.priority for f in three[::2]] == [third, third, third]
    assert all(f.recorded == 5.0 for f in three[::2])  # provenance keeps the undiscounted score
    assert three[1].priority == three[3].priority == 5.0


def test_a_list_told_in_consecutive_messages_is_one_occasion() -> None:
    # Counting instances one by one (the rule before) would divide each child by 3 ** POWER.
    kids = _kids()
    memory = discount_templates(kids, [])
    assert all(f.priority == 5.0 for f in kids) and memory == []
    interrupted = [*_kids()[:2], _other(1, speaker="user"), *_kids()[2:]]
    discount_templates(interrupted, [])
    assert all(f.priority == 5.0 for f in interrupted)  # two occasions: still not a template


def test_a_list_carried_in_the_summary_is_not_counted_again() -> None:
    memory = discount_templates(_kids(), [])
    carried = _kids(order=1)
    memory = discount_templates([*carried, _other(5, speaker="user")], memory)
    assert all(f.priority == 5.0 for f in carried)
    told_again = _kids()  # the same list told once more: a second occasion
    discount_templates([*_kids(order=1), *told_again], memory)
    assert all(f.priority == 5.0 for f in told_again)


def test_a_frame_said_in_several_lists_becomes_a_template() -> None:
    # The summary's list (an earlier occasion) and the same frame listed again: two.
    memory = discount_templates([*_kids(order=1), *_kids()], [])
    assert [t.seen for t in memory] == [2]
    third = _kids()
    discount_templates([*_kids(order=1), *third], memory)
    assert all(f.priority == 5.0 / 2**POWER for f in third)


def test_frames_sharing_fewer_words_than_they_differ_in_are_not_a_template() -> None:
    # Sharing fewer words than they differ in is not a template.
    told = [
        _fact("- user: My sister lives in Leeds and teaches maths at the school there."),
        _fact("- user: My brother lives in York and repairs old bikes in his garage.", pos=1),
        _fact("- user: My father lives in Hull and keeps bees behind the house.", pos=2),
    ]
    discount_templates(told, [])
    assert all(f.priority == 5.0 for f in told)


def test_occasions_seen_in_earlier_rounds_count() -> None:
    memory = discount_templates([_batch(0), _other(0), _batch(1)], [])
    assert [(t.speaker, t.seen) for t in memory] == [("assistant", 2)]
    alone = _batch(2)
    memory = discount_templates([alone], memory)
    assert alone.priority == 5.0 / 2**POWER and memory[0].seen == 3
    other_speaker = _batch(3, speaker="user")
    discount_templates([other_speaker], memory)
    assert other_speaker.priority == 5.0  # another speaker's sentence is not their template


def test_updates_tool_results_and_short_frames_are_never_templates() -> None:
    facts = [
        _fact(f"- user: Actually, my budget for the {p} is now {i}00 pounds.", pos=i)
        for i, p in enumerate(("sofa", "lamp", "rug"))
    ]
    facts += [
        _fact(f"- tool: lookup_order(order_id=A{i}) -> status=shipped; eta={i}") for i in range(3)
    ]
    facts += [_fact(f"- user: I am {i}.", pos=i) for i in range(3)]
    discount_templates(facts, [])
    assert all(f.priority == 5.0 for f in facts)


def test_memory_round_trips_and_is_capped() -> None:
    memory = [Template("assistant", frozenset(("a", "b", f"w{i}")), i) for i in range(40)]
    back = read_memory({"templates": write_memory(memory)})
    assert len(back) == MEMORY_SIZE and back[-1].frame == memory[-1].frame and back[-1].seen == 39
    bad = {"templates": [["x", "2", "a b"], "junk", ["x", 2], ["assistant", 3, "a b c d e"]]}
    assert [(t.speaker, t.seen) for t in read_memory(bad)] == [("assistant", 3)]
    assert read_memory(None) == [] and read_memory({"templates": "x"}) == []


def test_the_summarizer_remembers_templates_from_one_reduction_to_the_next() -> None:
    def request(texts: list[str], previous: str | None, info: object) -> SummaryRequest:
        messages = [Message(role="assistant", content=t, id=f"m{t[6:14]}") for t in texts]
        return SummaryRequest(
            messages=messages,
            previous_summary=previous,
            max_tokens=400,
            token_counter=ApproxCounter(),
            previous_info=info,
        )

    texts = [BATCH.format(c=c, p=p, d=d) for c, p, d in ITEMS]
    between = "Your parcel leaves the depot this afternoon, case 12345."
    summarizer = ExtractiveSummarizer()
    first = run_sync(summarizer.summarize(request([texts[0], between, texts[1]], None, None)))
    assert first.extra["templates"][0][:2] == ["assistant", 2]
    second = run_sync(summarizer.summarize(request(texts[2:3], first.text, first)))
    assert second.extra["templates"][0][:2] == ["assistant", 3]
    forgetful = run_sync(summarizer.summarize(request(texts[2:3], first.text, None)))
    assert forgetful.extra["templates"][0][:2] == ["assistant", 3]  # the summary: two occasions
    ablated = ExtractiveSummarizer(ablate=("templates",))
    assert run_sync(ablated.summarize(request(texts, None, None))).extra["templates"] == []
