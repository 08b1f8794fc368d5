"""A change said in other words than the value it changes (issue #29, stale-only).

"They knocked the venue deposit down to 1800." changes "Our venue deposit is 2400 pounds,
payable in June." although each has words the other lacks: :func:`.supersede.changed_slots`
links the two (the same kind of value, two subject words shared, a change word), so the stale
line ranks below the new one and is kept only beside it. Look-alikes (two flights, two
hotels, two parcels, another item in the same frame) are not linked. The positive tests fail
on main 0406765 (no link: ``marks`` is empty and the stale value stands alone at small
budgets); ``test_changed_slots_can_be_ablated`` keeps main's behaviour.
"""

from __future__ import annotations

import json

import pytest

from summem._flow import run_sync
from summem.messages import Message, SummaryInfo
from summem.summarizers.base import SummaryOutput, SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.tokens.base import ApproxCounter


def msg(id: str, content: str, role: str = "user") -> Message:
    return Message.from_openai({"role": role, "content": content}, id=id)


FILLER = [
    "Long week, the printer jammed twice and the coffee machine is broken again.",
    "I spent the evening sorting out the garden shed and the old bikes in it.",
    "The weather has been grey all week, we barely went outside at all.",
]


def summarize(
    messages: list[Message],
    max_tokens: int = 600,
    ablate: tuple[str, ...] = (),
    previous: SummaryOutput | None = None,
) -> SummaryOutput:
    request = SummaryRequest(
        messages=messages,
        previous_summary=None if previous is None else previous.text,
        previous_info=None if previous is None else SummaryInfo(extra=previous.extra),
        max_tokens=max_tokens,
        token_counter=ApproxCounter(),
    )
    return run_sync(ExtractiveSummarizer(verbatim_words=0, ablate=ablate).summarize(request))


def marks(out: SummaryOutput) -> dict[str, list[str]]:
    lines = out.text.splitlines()
    return {lines[e["line"]]: e["marks"] for e in out.extra["provenance"] if "marks" in e}


def chat(*said: str) -> list[Message]:
    """Each statement, with small talk and an assistant's reply between."""
    out: list[Message] = []
    for i, text in enumerate(said):
        out.append(msg(f"s{i}", text))
        out.append(msg(f"r{i}", "Okay, thanks for letting me know.", "assistant"))
        out.append(msg(f"f{i}", FILLER[i % len(FILLER)]))
    return out


CHANGES = [
    (
        "Our venue deposit is 2400 pounds, payable before the wedding.",
        "They knocked the venue deposit down to 1800.",
    ),
    (
        "We set the kitchen budget at 9000, that includes the island.",
        "OK the kitchen budget ends at 7500, no more changes.",
    ),
    (
        "The van hire reference is RD-3960-S for the move.",
        "Van hire reissued the booking, new reference HE365210.",
    ),
    (
        "My mortgage adviser is Priya Raman at the bank.",
        "We've got Tomasz Wilk as mortgage adviser from today.",
    ),
    (
        "The project kickoff is on 12 May in the big room.",
        "The project kickoff got pushed back to 19 May.",
    ),
]


@pytest.mark.parametrize(("old", "new"), CHANGES)
def test_a_change_in_other_words_marks_the_stale_statement(old: str, new: str) -> None:
    out = summarize(chat(old, new))
    assert [ids for line, ids in marks(out).items() if line.endswith(new)] == [["s0"]]


@pytest.mark.parametrize(("old", "new"), CHANGES)
@pytest.mark.parametrize("budget", [20, 30, 40, 60])
def test_the_stale_value_never_stays_alone(old: str, new: str, budget: int) -> None:
    text = summarize(chat(old, new), max_tokens=budget).text
    assert old not in text or new in text


def test_a_chain_of_changes_marks_each_link() -> None:
    out = summarize(
        chat(
            "The deposit for the venue hall is 2400.",
            "Venue deposit has gone up, they now want 3100.",
            "They knocked the venue deposit down to 1800.",
        )
    )
    got = {line.split(": ", 1)[-1].removeprefix("- "): ids for line, ids in marks(out).items()}
    assert got == {
        "Venue deposit has gone up, they now want 3100.": ["s0"],
        "They knocked the venue deposit down to 1800.": ["s1"],
    }


LOOK_ALIKES = [
    (  # two flights: another code besides the time
        "Flight BA117 to Boston leaves at 09:40 on Friday.",
        "Flight BA119 to Boston now leaves at 11:15 on Friday.",
    ),
    (  # two hotels: another name besides the price
        "The hotel in Rome costs 180 a night.",
        "The new hotel in Florence costs 140 a night.",
    ),
    (  # two parcels: a code is a thing unless it is said to be a new one
        "Parcel KZ358133 turned up, it was the wrong size of course.",
        "Parcel KZ358140 turned up, it was the wrong size of course.",
    ),
    (  # no change word
        "Room 12 is booked for the workshop on Monday.",
        "Room 14 is booked for the workshop on Monday.",
    ),
    (  # the older line says more: marked, it would take the builder's name with it
        "The kitchen budget is 9000 and Priya Raman is the builder.",
        "OK the kitchen budget ends at 7500, no more changes.",
    ),
    (  # another quantity of the same thing
        "The kitchen budget is 9000 for the whole refit.",
        "We've spent 4000 of the kitchen budget now.",
    ),
    (  # a question changes nothing
        "Our venue deposit is 2400 pounds, payable before the wedding.",
        "Is the new venue deposit 1800 then?",
    ),
    (  # nor does a supposition
        "Our venue deposit is 2400 pounds, payable before the wedding.",
        "Maybe they knocked the venue deposit down to 1800 if we pay early.",
    ),
    (  # one subject word shared
        "My budget for the headlamps is 79 pounds.",
        "My budget for the tent is now 230 pounds.",
    ),
]


@pytest.mark.parametrize(("old", "new"), LOOK_ALIKES)
def test_two_things_of_one_kind_are_not_a_change(old: str, new: str) -> None:
    assert marks(summarize(chat(old, new))) == {}


def test_changed_slots_can_be_ablated() -> None:
    old, new = CHANGES[0]
    assert marks(summarize(chat(old, new), ablate=("changed_slots",))) == {}


def _email(i: int, thing: str, body: str) -> list[Message]:
    """The user asks for mail about ``thing``; a search tool answers with one email."""
    call = f"call_{i}"
    fn = {"name": "search_email", "arguments": json.dumps({"query": thing})}
    mail = [{"from": "office@vendor.example", "subject": f"Your {thing}", "body": body}]
    return [
        msg(f"q{i}", f"Can you check my email for anything from the {thing}?"),
        Message.from_openai(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": call, "type": "function", "function": fn}],
            },
            id=f"c{i}",
        ),
        Message.from_openai(
            {"role": "tool", "tool_call_id": call, "content": json.dumps(mail)}, id=f"t{i}"
        ),
        msg(f"a{i}", "Found their email, it's in the message above.", "assistant"),
    ]


MAILED = chat(
    "The wedding venue deposit is 2400.50, payable next month.",
    "The wedding venue balance is 9100.20, due the week before.",
) + _email(
    2, "wedding venue", "Following our call, your wedding venue deposit is now 1800.75. Best"
)


def test_a_change_in_a_tool_results_prose_marks_the_users_statement() -> None:
    """The email changes the deposit the user stated, not the balance beside it."""
    out = summarize(MAILED)
    assert [ids for line, ids in marks(out).items() if "tool:" in line] == [["s0"]]


@pytest.mark.parametrize("budget", [20, 30, 40, 60, 80])
def test_a_value_a_tool_result_changed_never_stays_alone(budget: int) -> None:
    text = summarize(MAILED, max_tokens=budget).text
    assert "2400.50" not in text or "1800.75" in text


def test_a_tool_result_without_prose_changes_nothing() -> None:
    """A record's fields (a status, a count) are no statement of a change."""
    said = chat("The wedding venue deposit is 2400.50, payable next month.")
    call = "call_9"
    fn = {"name": "venue_status", "arguments": "{}"}
    record = {"venue": "wedding venue", "deposit_now": 1800.75, "status": "changed"}
    said += [
        Message.from_openai(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": call, "type": "function", "function": fn}],
            },
            id="c9",
        ),
        Message.from_openai(
            {"role": "tool", "tool_call_id": call, "content": json.dumps(record)}, id="t9"
        ),
    ]
    assert marks(summarize(said)) == {}


def test_a_change_linked_in_an_earlier_round_marks_nothing_more() -> None:
    """Once a change has replaced or marked the deposit (here :func:`.supersede.supersede`
    replaces it; read back next round, a link is restored from provenance), it must not go
    on to the venue's balance, the latest other value of its kind sharing "wedding venue":
    marked, the balance would be kept only beside the change. Failed before the guard on
    ``fact.marks`` and ``fact.supersedes`` (the balance was marked in both rounds)."""
    first = summarize(
        chat(
            "The wedding venue deposit is 2400.50, payable next month.",
            "The wedding venue balance is 9100.20, due the week before.",
            "The wedding venue changed the deposit again, it's 1800.75 after all.",
        )
    )
    assert marks(first) == {}
    second = summarize([msg("n0", FILLER[0]), msg("n1", FILLER[1])], previous=first)
    assert marks(second) == {}
    assert "9100.20" in summarize([msg("n2", FILLER[2])], max_tokens=40, previous=second).text


def test_an_acknowledgement_joined_to_a_statement_is_not_its_subject() -> None:
    """ "Changed it in your notes, in reply to user: Revised kitchen budget: 13762.76." and the
    same acknowledgement of the venue deposit share "notes", "reply" and "user", and
    "changed" reads as a change word: read whole, the deposit line marked the kitchen budget
    (failed on the chains14 rule; the loss round 12 measured on blind11-chains)."""
    said: list[Message] = []
    for i, text in enumerate(
        ["Revised kitchen budget: 13762.76.", "Venue deposit has gone up, they now want 31192.85."]
    ):
        said += [
            msg(f"s{i}", text),
            msg(f"r{i}", "Changed it in your notes.", "assistant"),
            msg(f"f{i}", FILLER[i]),
        ]
    out = summarize(said)
    assert "in reply to user: Revised kitchen budget" in out.text
    assert marks(out) == {}
