"""A change relayed by a tool result's prose (issue #29, stale-only; round 14).

"Following our call, your wedding venue deposit is now 1800.75." in an email a search tool
found changes the deposit the user stated: :func:`.supersede.relayed_changes` marks the
user's line, so it ranks below the email and is kept only beside it. Ablated
(``tool_changes``), the user's stale deposit is kept alone at small budgets.
"""

from __future__ import annotations

import json

import pytest

from summem._flow import run_sync
from summem.messages import Message, SummaryInfo
from summem.summarizers.base import SummaryOutput, SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.summarizers.extractive.selection import Fact, make_fact
from summem.summarizers.extractive.supersede import relayed_changes
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
    """Each statement, with an assistant's reply and small talk between."""
    out: list[Message] = []
    for i, text in enumerate(said):
        out.append(msg(f"s{i}", text))
        out.append(msg(f"r{i}", "Okay, thanks for letting me know.", "assistant"))
        out.append(msg(f"f{i}", FILLER[i % len(FILLER)]))
    return out


def tool(i: int, name: str, result: object) -> list[Message]:
    """An assistant's call of ``name`` and its result."""
    call = f"call_{i}"
    fn = {"name": name, "arguments": json.dumps({"query": "vendor"})}
    return [
        Message.from_openai(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": call, "type": "function", "function": fn}],
            },
            id=f"c{i}",
        ),
        Message.from_openai(
            {"role": "tool", "tool_call_id": call, "content": json.dumps(result)}, id=f"t{i}"
        ),
        msg(f"a{i}", "Found it, the result is above.", "assistant"),
    ]


def email(i: int, thing: str, body: str) -> list[Message]:
    """A search tool's answer: one email about ``thing``."""
    mail = [{"from": "office@vendor.example", "subject": f"Your {thing}", "body": body}]
    return tool(i, "search_email", mail)


VENUE = (
    "The wedding venue deposit is 2400.50, payable next month.",
    "The wedding venue balance is 9100.20, due the week before.",
)
MAILED = chat(*VENUE) + email(
    2, "wedding venue", "Following our call, your wedding venue deposit is now 1800.75. Best"
)


def tool_marks(out: SummaryOutput) -> list[list[str]]:
    return [ids for line, ids in marks(out).items() if "tool:" in line]


def test_a_change_in_an_emails_prose_marks_the_statement_it_changes() -> None:
    """The email changes the deposit, not the balance beside it."""
    assert tool_marks(summarize(MAILED)) == [["s0"]]
    assert tool_marks(summarize(MAILED, ablate=("tool_changes",))) == []


@pytest.mark.parametrize("budget", [25, 30, 40, 60, 80])
def test_a_value_an_email_changed_never_stays_alone(budget: int) -> None:
    text = summarize(MAILED, max_tokens=budget).text
    assert "2400.50" not in text or "1800.75" in text


def test_the_stale_value_stays_alone_without_the_rule() -> None:
    """What the rule fixes: at a small budget the user's stale deposit outranks the email."""
    lost = [
        b
        for b in (25, 30, 40, 60, 80)
        if "2400.50" in (t := summarize(MAILED, b, ("tool_changes",)).text) and "1800.75" not in t
    ]
    assert lost


@pytest.mark.parametrize(
    ("old", "body"),
    [
        (
            "The kitchen refit starts on October 8, 2028.",
            "Your kitchen refit start date has been moved to 2 February 2027.",
        ),
        (
            "The car insurance renewal is on 11 March 2028, I need to shop around.",
            "Please note your car insurance now renews on December 18, 2027.",
        ),
        (
            "The holiday cottage booking reference is TN440026.",
            "Your holiday cottage booking has been amended, new reference AY-5693-H.",
        ),
        (
            "Our holiday cottage host is Jago Inchbald, he lives next door.",
            "Your holiday cottage host for this stay is now Tamsin Inchbald. Enjoy",
        ),
    ],
)
def test_each_kind_of_value(old: str, body: str) -> None:
    """A date, a code and a name, said in other words by the email."""
    said = chat(old, "The removal van booking number is M82H746, it comes at 9am.")
    assert tool_marks(summarize([*said, *email(2, "vendor", body)])) == [["s0"]]


def test_an_earlier_emails_value_is_changed_by_a_later_one() -> None:
    said = chat("The kitchen refit starts on December 2, 2028.") + email(
        1, "kitchen refit", "Your kitchen refit start date has been moved to January 26, 2026."
    )
    later = email(2, "kitchen refit", "Your kitchen refit start date has been moved to May 27.")
    out = summarize(said + later)
    assert sorted(tool_marks(out)) == [["c1", "t1"], ["s0"]]


def test_an_email_fitting_two_values_alike_marks_neither() -> None:
    """ "your wedding venue payment is now 1800.75" fits the deposit and the balance."""
    said = chat(*VENUE) + email(
        2, "wedding venue", "Following our call, your wedding venue payment is now 1800.75. Best"
    )
    assert tool_marks(summarize(said)) == []


def test_an_email_without_a_change_word_changes_nothing() -> None:
    said = chat(*VENUE) + email(
        2, "wedding venue", "Thanks for visiting, the wedding venue deposit of 1800.75 is due."
    )
    assert tool_marks(summarize(said)) == []


def test_a_tool_result_without_prose_changes_nothing() -> None:
    """A record's fields (a status, a count) are no statement of a change."""
    record = {"venue": "wedding venue", "deposit_now": 1800.75, "status": "changed"}
    said = chat(VENUE[0]) + tool(2, "venue_status", record)
    assert marks(summarize(said)) == {}


def test_the_link_is_read_once_and_kept() -> None:
    """Read back next round, the email marks nothing more; its link comes from provenance."""
    first = summarize(MAILED)
    second = summarize([msg("n0", FILLER[0]), msg("n1", FILLER[1])], previous=first)
    assert tool_marks(second) == [["s0"]]
    assert "9100.20" in summarize([msg("n2", FILLER[2])], max_tokens=60, previous=second).text


def _fact(line: str, at: int, span: int = 2) -> Fact:
    return make_fact(line, None, 1.0, [f"m{at}"], (span, at, 0), frozenset())


def test_a_changed_statement_still_fits_best() -> None:
    """The deposit's statement, already changed (its change no longer a candidate), fits the
    email best: the balance, which shares only "wedding venue", must not be marked."""
    deposit = _fact("- user: The wedding venue deposit is 2400.50, payable next month.", 0, 1)
    balance = _fact("- user: The wedding venue balance is 9100.20, due the week before.", 1, 1)
    deposit.corrected_by = _fact("- user: placeholder", 9, 1)
    mail = "Following our call, your wedding venue deposit is now 1800.75 after all."
    result = _fact(f"- tool: search_email(query=venue) -> [0].body={mail}", 2)
    assert relayed_changes([deposit, balance, result]) == 0
    assert balance.corrected_by is None


SPOKEN = [
    (
        "Venue deposit has gone up, they now want 2400.50 for the day.",
        "They knocked the venue deposit down to 1800.75.",
        "2400.50",
        "1800.75",
    ),
    (
        "Another new van hire reference, RD-3960-S, for the move.",
        "Van hire reissued the booking, new reference HE365210.",
        "rd-3960-s",
        "he365210",
    ),
]


def user_marks(out: SummaryOutput) -> list[list[str]]:
    return [ids for line, ids in marks(out).items() if "tool:" not in line]


@pytest.mark.parametrize(("old", "new", "_was", "_now"), SPOKEN)
def test_a_change_said_in_other_words_marks_the_older_statement(
    old: str, new: str, _was: str, _now: str
) -> None:
    """Each names a word the other does not, so supersede leaves them apart."""
    said = chat(old, "The removal van comes at 9am, the driver is Emrys Hawtrey.", new)
    assert user_marks(summarize(said)) == [["s0"]]
    assert user_marks(summarize(said, ablate=("spoken_changes",))) == []


@pytest.mark.parametrize("budget", [20, 25, 30, 40])
@pytest.mark.parametrize(("old", "new", "was", "now"), SPOKEN)
def test_a_value_changed_in_other_words_never_stays_alone(
    old: str, new: str, was: str, now: str, budget: int
) -> None:
    said = chat(old, "The removal van comes at 9am, the driver is Emrys Hawtrey.", new)
    text = summarize(said, max_tokens=budget).text.lower()
    assert was not in text or now in text


def test_two_things_of_one_kind_are_not_one_changed() -> None:
    """A change of the deposit does not mark the balance it shares "wedding venue" with."""
    said = chat(*VENUE, "The wedding venue deposit went down to 1800.75 in the end.")
    assert all("9100.20" not in line for line in marks(summarize(said)))


def test_another_speakers_statement_is_not_a_change() -> None:
    """The assistant's reckoning is no change of what the user said (``spoken_changes``
    marks only the same speaker's statement)."""
    reckoning = "Noted, so the wedding venue deposit is now 1800.75 by my count."
    said = [*chat(VENUE[0]), msg("x0", reckoning, "assistant")]
    assert marks(summarize(said)) == {}


def test_a_change_naming_two_more_things_is_not_a_change() -> None:
    said = chat(VENUE[0], "The wedding venue catering deposit for the band is now 1800.75.")
    assert marks(summarize(said)) == {}
