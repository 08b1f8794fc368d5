"""A value corrected more than once: only the chain's latest link is current (issue #29).

A stale line never outlives its correction, at any depth of the chain; and what is not a
correction (one sentence frame with another item, a restatement naming someone new) marks
nothing. A rule linking corrections said in other words was measured and not shipped (it
lost on the held-out revision families; see the closing note of issue #29's round).
"""

from __future__ import annotations

from summem._flow import run_sync
from summem.messages import Message, SummaryInfo
from summem.summarizers.base import SummaryOutput, SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.summarizers.extractive.selection import Fact, Selection, make_fact
from summem.tokens.base import ApproxCounter


def msg(id: str, content: str, role: str = "user") -> Message:
    return Message.from_openai({"role": role, "content": content}, id=id)


def summarize(
    messages: list[Message], max_tokens: int = 600, previous: SummaryOutput | None = None
) -> SummaryOutput:
    request = SummaryRequest(
        messages=messages,
        previous_summary=previous.text if previous else None,
        previous_info=SummaryInfo(extra=previous.extra) if previous else None,
        max_tokens=max_tokens,
        token_counter=ApproxCounter(),
    )
    return run_sync(ExtractiveSummarizer(verbatim_words=0).summarize(request))


def marks(out: SummaryOutput) -> dict[str, list[str]]:
    lines = out.text.splitlines()
    return {lines[e["line"]]: e["marks"] for e in out.extra["provenance"] if "marks" in e}


A = "The gate code at the holiday let is SN342387."
B = "They reset the holiday let gate to WJ144891."
C = "Gate code at the let changed again: BN-3410-E."


def test_one_frame_with_another_item_is_two_things_not_a_correction() -> None:
    out = summarize(
        [
            msg("a", "We need 1720 of the backpacks for the group trip."),
            msg("b", "Update: we now need 1872 of the trekking poles for the group."),
            msg("c", "My mother's birthday is 18 May 2028, don't let me forget it."),
            msg("d", "My grandmother's birthday is 21 April 2026, don't let me forget it."),
        ]
    )
    assert marks(out) == {}


def test_a_restatement_naming_someone_new_is_not_a_correction() -> None:
    out = summarize(
        [
            msg("a", "The window firm revised their quote to 3,598.85."),
            msg("b", "FYI Dmitri Grimaldi sent the quote, 4,248.05 for windows."),
        ]
    )
    assert marks(out) == {}


def _fact(line: str, priority: float, n: int) -> Fact:
    return make_fact(line, None, priority, [f"m{n}"], (2, n, 0), frozenset(line.split()))


def test_a_stale_line_never_outlives_its_correction_at_any_depth_of_the_chain() -> None:
    # A -> B -> C -> D -> E: the latest correction E is too long for the room, so D goes with
    # it, then C, B and A, each of which only ever stood beside the next (whatever their
    # order in the list, however many times the rule is applied).
    chain = [_fact(f"- user: gate code {n}{n}{n}", 3.0, n) for n in range(1, 5)]
    last = _fact("- user: " + "gate code changed again to BN-3410-E " * 6, 6.0, 5)
    for older, newer in zip(chain, [*chain[1:], last], strict=True):
        older.corrected_by = newer
    selection = Selection(ApproxCounter(), 40)
    selection.fill([last, *chain], 40)
    assert [f.state for f in (*chain, last)] == [1, 1, 1, 1, 0]
    assert selection.finish([*chain, last]) == []
