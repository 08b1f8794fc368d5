"""blind4-filler: a small business's working session, every turn dense with values.

The owner of a print-and-gift shop works through the week with an assistant: invoices to chase,
couriers, stock counts, staff hours, supplier calls. Nearly every ordinary turn carries numbers,
codes, dates, times, amounts and people's names, on the user's side, the assistant's and in tool
results, all fresh (never a planted value). Among them 20 facts are planted: 12 said by the user
(an alarm code, the VAT number, the accountant, the year end, a rent rise, a courier cut-off...),
4 by the assistant (a standing-order reference, a supplier account number, a booked slot, a
negotiated rate) and 4 in a tool result (an account manager, a company number, a lease break
date, a quote total). A fact is told from filler by what it is, not by having a value.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from functools import partial

from evals.families.blind4.base import Convo, Slots, build, spread
from evals.families.blind4.chatter import MONTHS, Fresh
from evals.families.trajectories import Trajectory

__all__ = ["PLANTS", "generate"]

PEOPLE = (
    "Rhiannon Blakemore",
    "Tobias Fennimore",
    "Adaeze Nwachukwu",
    "Crispin Holloway",
    "Marisol Etxeberria",
    "Lachlan Dunmore",
    "Perpetua Osei",
    "Ingrid Solberg-Haas",
    "Caspian Wetherell",
    "Yolanda Ferreira-Lutz",
)
SUPPLIERS = (
    "Fenwick Paper",
    "Inkwell Direct",
    "BoxCo",
    "Craftwise",
    "Mailmate",
    "Gildersleeve Frames",
)


def _date(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    d, m = rng.randint(1, 28), rng.randint(1, 12)
    month = MONTHS[m - 1]
    return f"{d} {month} 2028", (f"{month} {d}, 2028", f"2028-{m:02d}-{d:02d}")


def _digits(rng: random.Random, n: int) -> str:
    return "".join(str(rng.randint(0, 9)) for _ in range(n))


Draw = Callable[[random.Random], tuple[str, tuple[str, ...]]]

# (role, kind, draw, text with {v}; for a tool: the tool name and a JSON template)
PLANTS: tuple[tuple[str, str, Draw, str], ...] = (
    (
        "user",
        "code",
        lambda r: (f"{_digits(r, 4)}{r.choice('XKQZ')}", ()),
        "Landlord's changing the alarm on the unit, the new code is {v} from Monday. Let the "
        "Saturday staff know, would you?",
    ),
    (
        "user",
        "code",
        lambda r: (f"GB {_digits(r, 3)} {_digits(r, 4)} {_digits(r, 2)}", ()),
        "The wholesale form wants our VAT number, it's {v}, can you fill that in and send it back?",
    ),
    (
        "user",
        "value",
        lambda r: (f"{_digits(r, 2)}-{_digits(r, 2)}-{_digits(r, 2)}", ()),
        "Fenwick Paper changed banks. New sort code {v}, same account number. Update the payee "
        "before Friday's run.",
    ),
    (
        "user",
        "name",
        lambda r: (r.choice(PEOPLE), ()),
        "We've moved accountants, it's {v} at Halden & Co now. They'll want read access to the "
        "books.",
    ),
    (
        "user",
        "date",
        _date,
        "Year end for the company moved, it's {v} from this year on. Can you think about what "
        "that means for the stock count?",
    ),
    (
        "user",
        "value",
        lambda r: (f"£{r.randint(1, 2)},{r.randint(100, 999)} a month", ()),
        "Rent on the unit goes up to {v} from April, which stings. Put it in the cash flow.",
    ),
    (
        "user",
        "value",
        lambda r: (f"{r.randint(13, 16)}:{r.choice(('05', '20', '25', '35', '55'))}", ()),
        "DPD's driver said collections from us are cut off at {v} now, anything after that goes "
        "the next day.",
    ),
    (
        "user",
        "code",
        lambda r: (f"Gilder{r.choice(('Fox', 'Owl', 'Hare', 'Wren'))}{_digits(r, 3)}!", ()),
        "Shop Wi-Fi password got changed by the broadband guy to {v}, in case the card machine "
        "drops off again.",
    ),
    (
        "user",
        "date",
        _date,
        "Insurance renewal for the shop is {v}, and I'm not letting it roll over this time.",
    ),
    (
        "user",
        "name",
        lambda r: (r.choice(PEOPLE), ()),
        "The landlord's agent is {v} now, the old one left. Any repairs go through them.",
    ),
    (
        "user",
        "code",
        lambda r: (f"stock-master-{r.choice(('v3', 'v4', '2028'))}-{_digits(r, 2)}.xlsx", ()),
        "Use {v} for stock from now on, the old sheet's a mess and I've archived it.",
    ),
    (
        "user",
        "value",
        lambda r: (f"{r.randint(3, 9)}0 units", ()),
        "Craftwise won't take orders below {v} any more, so bundle the reorders.",
    ),
    (
        "assistant",
        "code",
        lambda r: (f"SO{_digits(r, 7)}", ()),
        "I've set up the standing order to BoxCo for the first of each month; the bank's "
        "reference for it is {v}.",
    ),
    (
        "assistant",
        "code",
        lambda r: (f"BRK-{_digits(r, 6)}", ()),
        "Your trade account with Brakes is open; the account number is {v}, and they deliver "
        "Tuesdays.",
    ),
    (
        "assistant",
        "date",
        _date,
        "I got the boiler engineer for the unit on {v}, the first slot they had, morning.",
    ),
    (
        "assistant",
        "value",
        lambda r: (f"£{r.randint(3, 7)}.{r.choice(('15', '35', '65', '85'))} a box", ()),
        "Mailmate agreed to {v} on the new contract if we stay over forty boxes a week.",
    ),
    (
        "tool",
        "name",
        lambda r: (r.choice(PEOPLE), ()),
        "get_bank_account|Who's our contact at the bank these days?|"
        + json.dumps(
            {
                "account": "Business Current",
                "account_manager": "{v}",
                "branch": "Kendal",
                "overdraft": "£2,000",
            }
        ),
    ),
    (
        "tool",
        "code",
        lambda r: (f"{r.choice(('SC', 'NI', ''))}{_digits(r, 8)}", ()),
        "lookup_company|Companies House details for us, please, the new insurer wants them.|"
        + json.dumps(
            {
                "name": "Paper Lantern Gifts Ltd",
                "company_number": "{v}",
                "status": "active",
                "incorporated": "2019",
            }
        ),
    ),
    (
        "tool",
        "date",
        _date,
        "read_lease|What does the lease say about getting out early?|"
        + json.dumps(
            {
                "unit": "4B Fellside Yard",
                "term_years": 5,
                "break_clause_date": "{v}",
                "notice_months": 6,
            }
        ),
    ),
    (
        "tool",
        "value",
        lambda r: (f"£{r.randint(1, 9)},{_digits(r, 3)}.{_digits(r, 2)}", ()),
        "get_quote|Has the framing quote landed?|"
        + json.dumps(
            {
                "supplier": "Gildersleeve Frames",
                "lines": 14,
                "total_inc_vat": "{v}",
                "valid_days": 30,
            }
        ),
    ),
)


def _episode(convo: Convo, plant: tuple[str, str, Draw, str], used: set[str]) -> None:
    role, kind, draw, text = plant
    while True:
        value, aliases = draw(convo.rng)
        if value not in used:
            break
    used.add(value)
    rng = convo.rng
    if role == "user":
        index = convo.user(text.format(v=value))
        convo.say(
            rng.choice(
                ("Done.", "Okay, sorted.", "Right, I've done that.", "On it, that's updated.")
            )
        )
    elif role == "assistant":
        convo.user(
            rng.choice(
                (
                    "Anything from this morning I should know about?",
                    "Where are we with the supplier admin?",
                    "Any updates while I was out?",
                )
            )
        )
        index = convo.say(text.format(v=value))
    else:
        name, question, template = text.split("|", 2)
        convo.user(question)
        index = convo.call(name, {}, template.replace("{v}", value))
        convo.say(rng.choice(("There it is.", "That's what's on record.", "Pulled it up, above.")))
    convo.plant(kind, value, index, aliases=aliases)


def _dense(convo: Convo, f: Fresh) -> None:
    rng = convo.rng
    inv = f"INV-{rng.randint(1000, 9999)}"
    sup = rng.choice(SUPPLIERS)
    pairs = (
        (
            f"Chase {inv} with {f.full()}, it was {f.money()} and due {f.date()}.",
            f"Chased. {f.name()} says it'll clear by {f.date()}; I logged it as {f.code()}.",
        ),
        (
            f"How many A5 kraft boxes left? We sold {f.num(4, 40)} yesterday.",
            f"The sheet says {f.num(40, 300)} on the shelf and {f.num(1, 9)} cartons in the "
            f"back as of {f.time()}.",
        ),
        (
            f"{f.name()} can do {f.num(3, 9)} hours on {f.day()}, is that over budget?",
            f"At £{f.num(11, 14)}.{f.num(10, 90)} an hour that's fine; the week's wages come to "
            f"{f.money()} so far.",
        ),
        (
            f"Courier missed the {f.time()} pickup again, ticket {f.code()}.",
            f"Logged with {sup}; they offered a redelivery {f.day()} before {f.time()} and a "
            f"{f.money()} credit.",
        ),
        (
            f"What did we take on {f.day()}? Till said {f.money()} but the card reader looked off.",
            f"Card payouts show {f.money()} and cash {f.money()}; the gap is one refund, "
            f"{f.code()}.",
        ),
        (
            f"{sup} want to move the delivery to {f.date()}, fine?",
            f"That works, nothing else lands that day. I'll reply to {f.name()} with PO "
            f"{f.code()}.",
        ),
        (
            f"Print run for the wedding order: {f.num(60, 240)} cards, names due from "
            f"{f.full()} by {f.date()}.",
            f"Noted on the job board as {f.code()}; the press is free from {f.time()} {f.day()}.",
        ),
        (
            f"Refund {f.name()} for the cracked frame, {f.money()}, order {f.code()}.",
            f"Refund sent, {f.money()} to the card ending {f.num(1000, 9999)}. Stripe ref "
            f"{f.code()}.",
        ),
    )
    user, reply = rng.choice(pairs)
    convo.user(user)
    if rng.random() < 0.35:
        convo.call(
            rng.choice(("check_orders", "list_invoices", "stock_lookup", "bank_feed")),
            {"since": f.date()},
            json.dumps(
                {
                    "items": [
                        {
                            "ref": f.code(),
                            "who": f.full(),
                            "amount": f.money(),
                            "when": f"{f.date()} {f.time()}",
                        }
                        for _ in range(rng.randint(2, 5))
                    ],
                    "page": 1,
                }
            ),
        )
    convo.say(reply)


def write(convo: Convo, turns: int, facts: int) -> None:
    f = Fresh(convo.rng)
    convo.system(
        "You are Ledger, the assistant of Paper Lantern Gifts, a print-and-gift shop. You handle "
        "invoices, suppliers, couriers, staff hours and the shop's accounts."
    )
    slots = Slots(turns)
    plants = list(PLANTS)
    convo.rng.shuffle(plants)
    used: set[str] = set()
    for i, at in enumerate(spread(convo.rng, facts, turns)):
        plant = plants[i % len(plants)]
        slots.put(at, partial(_episode, convo, plant, used))
    slots.run(lambda: _dense(convo, f))


def generate(seed: int, *, turns: int = 560, facts: int = 20) -> Trajectory:
    """The ``blind4-filler`` conversation for ``seed``."""
    return build(
        "b4-filler", seed, lambda c: write(c, turns, facts), {"turns": turns, "facts": facts}
    )
