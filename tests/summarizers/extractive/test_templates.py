"""Templated sentences: discounted on their third occasion, remembered across reductions."""

from __future__ import annotations

from summem._flow import run_sync
from summem.messages import Message, SummaryInfo
from summem.summarizers.base import SummaryRequest
from summem.summarizers.extractive.selection import Fact, make_fact
from summem.summarizers.extractive.summarizer import ExtractiveSummarizer
from summem.summarizers.extractive.templates import (
    COUNTED_BY,
    MEMORY_SIZE,
    POWER,
    Template,
    discount_templates,
    frame_of,
    read_memory,
    read_open_runs,
    write_memory,
    write_open_runs,
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
    back = read_memory({"templates": write_memory(memory), COUNTED_BY: "occasions"})
    assert len(back) == MEMORY_SIZE and back[-1].frame == memory[-1].frame and back[-1].seen == 39
    junk = [["x", "2", "a b"], "junk", ["x", 2], ["assistant", 3, "a b c d e"]]
    bad = {"templates": junk, COUNTED_BY: "occasions"}
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
    later = "Your order ships from the north depot tomorrow, case 67890."
    second = run_sync(summarizer.summarize(request([later, texts[2]], first.text, first)))
    assert second.extra["templates"][0][:2] == ["assistant", 3]
    layout_only = SummaryInfo(extra={"format": first.extra["format"]})  # no template memory
    forgetful = run_sync(summarizer.summarize(request(texts[2:3], first.text, layout_only)))
    assert forgetful.extra["templates"][0][:2] == ["assistant", 3]  # the summary: two occasions
    ablated = ExtractiveSummarizer(ablate=("templates",))
    assert run_sync(ablated.summarize(request(texts, None, None))).extra["templates"] == []


def _summarize(
    summarizer: ExtractiveSummarizer,
    turns: list[tuple[str, str]],
    start: int,
    previous: object,
    budget: int = 400,
) -> object:
    messages = [
        Message(role=role, content=text, id=f"m{start + i}") for i, (role, text) in enumerate(turns)
    ]
    request = SummaryRequest(
        messages=messages,
        previous_summary=getattr(previous, "text", None),
        max_tokens=budget,
        token_counter=ApproxCounter(),
        previous_info=previous,
    )
    return run_sync(summarizer.summarize(request))


def test_a_list_told_one_message_per_reduction_is_one_occasion() -> None:
    # Each reduction holds one child and the assistant's reply: the list's runs in the summary
    # and in the new span are one run going on, not one occasion per piece.
    summarizer = ExtractiveSummarizer()
    info: object = None
    for i, kid in enumerate(KIDS):
        info = _summarize(summarizer, [("user", kid), ("assistant", "Noted.")], 2 * i, info)
    more = (
        "I work night shifts at the hospital on Tuesdays and Thursdays.",
        "Our car is a blue Skoda with plate KX19 RTA parked outside.",
        "We moved to Leeds in March 2021 from Bristol with the whole family.",
    )
    for i, text in enumerate(more):
        info = _summarize(summarizer, [("user", text), ("assistant", "Okay.")], 20 + 2 * i, info)
    text = getattr(info, "text", "")
    assert all(name in text for name in ("Jake", "Maya", "Leo", "Ava"))
    assert getattr(info, "extra", {})["templates"] == []


def test_an_open_run_goes_on_only_from_the_speakers_first_message() -> None:
    memory = discount_templates([_kids(order=1)[0]], [])
    open_runs = {"user": [frame_of(KIDS[0])]}
    second = _fact(f"- user: {KIDS[1]}", 2, 10)
    discount_templates([_kids(order=1)[0], second], memory, open_runs)
    assert open_runs["user"] == [frame_of(KIDS[1])]
    # Another fact of the user's first in the span: the list is said again, a second occasion.
    memory = discount_templates(
        [*_kids(order=1)[:2], _other(5, speaker="user"), _fact(f"- user: {KIDS[2]}", 2, 12)],
        [],
        {"user": [frame_of(KIDS[1])]},
    )
    assert [t.seen for t in memory] == [2]
    back = read_open_runs({"open_runs": write_open_runs(open_runs)})
    assert back == open_runs
    assert read_open_runs({"open_runs": [["user"], "x", ["user", 3]]}) == {}
    assert read_open_runs(None) == {}


def test_boilerplate_in_each_consecutive_reply_is_one_occasion_but_learned_across_reductions() -> (
    None
):
    sign_off = "Let me know if there is anything else I can help you with today, {n}."
    replies = [
        _fact(f"- assistant: {sign_off.format(n=c)}", 2, 2 * i) for i, c in enumerate("ABCD")
    ]
    memory = discount_templates(replies, [])
    assert all(f.priority == 5.0 for f in replies) and memory == []  # one occasion: deliberate
    carried = _fact(f"- assistant: {sign_off.format(n='D')}", 1, 6)  # the summary kept one
    for round_ in range(1, 3):  # each reduction then says it again after something else
        facts = [carried, _other(10 * round_, speaker="assistant")]
        facts.append(_fact(f"- assistant: {sign_off.format(n=round_)}", 2, 20 * round_ + 5))
        memory = discount_templates(facts, memory)
    assert [t.seen for t in memory] == [3] and facts[-1].priority < 5.0


def test_an_old_summary_counted_instances_and_its_seen_is_read_as_at_most_two() -> None:
    old = {"format": "summem.extractive/2", "templates": [["user", 4, " ".join(frame_of(KIDS[0]))]]}
    assert [t.seen for t in read_memory(old)] == [2]
    # A list from before is not a template forever: one more occasion than the old list's
    # two is a template, as a real filler template would be (relearned on its next occasion).
    told_again = _kids()
    memory = discount_templates(told_again, read_memory(old))
    assert [t.seen for t in memory] == [3] and told_again[0].priority < 5.0
    # Through the summarizer: a previous summary without the marker, then the new marker.
    summarizer = ExtractiveSummarizer()
    first = _summarize(summarizer, [("user", KIDS[0])], 0, None)
    extra = dict(getattr(first, "extra", {}))
    extra.pop(COUNTED_BY)
    extra["templates"] = [["user", 9, " ".join(frame_of(KIDS[0]))]]
    previous = type(first)(**{**vars(first), "extra": extra})
    later = _summarize(summarizer, [("assistant", "Okay, noted."), ("user", KIDS[1])], 5, previous)
    assert getattr(later, "extra", {})[COUNTED_BY] == "occasions"
    assert [t[:2] for t in getattr(later, "extra", {})["templates"]] == [["user", 2]]
