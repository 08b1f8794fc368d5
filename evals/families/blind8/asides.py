"""``blind8-asides``: a kitchen fitter's own needs and limits, said on the way to something else.

The details of a life (food, body, family, travel, money) come up inside longer messages
about other things: voice notes dictated in the van (run on, no full stops), email-style
messages with a greeting and a sign-off, lists of errands, and now and then as a bare phrase
answering the assistant's question ("not the ground floor"). Some are negative: the value
then keeps its "no"/"not", since the detail means the opposite without it. No cue words
(:data:`BANNED`). The reply never repeats the detail.
"""

from __future__ import annotations

from evals.families.blind6.base import spread
from evals.families.blind8.base import Writer, build
from evals.families.trajectories import Trajectory

__all__ = ["BANNED", "DETAILS", "generate"]

BANNED = (
    "prefer",
    "always",
    "never",
    "hate",
    "love",
    "favourite",
    "favorite",
    "remember",
    "usually",
    "by the way",
    "note that",
    "from now on",
    "rather",
    "keep in mind",
    "bear in mind",
    "fyi",
)
"""Words a cue-spotting rule would look for; no planted message holds one."""

DETAILS: tuple[tuple[str, str, str, str, str], ...] = (
    # value, run-on clause, a sentence, the assistant's question, the bare answer
    (
        "decaf",
        "and it'll have to be decaf for me if there's coffee going",
        "Only decaf for me at anything like that, my heart races otherwise.",
        "Will you want tea or coffee laid on for you?",
        "decaf coffee, if they have it",
    ),
    (
        "bad knee",
        "and with this bad knee i can't be kneeling all day anymore",
        "I've got a bad knee at the moment so I'm slow on ladders.",
        "Anything physical I should allow for in the schedule?",
        "bad knee. that's about it",
    ),
    (
        "no stairs",
        "and it needs to be no stairs for my mum when she visits",
        "For my mum it has to be no stairs, she's on a frame now.",
        "Does your mum have any access needs for the visit?",
        "no stairs, she can't manage them",
    ),
    (
        "not the ground floor",
        "and not the ground floor this time, we got burgled last place",
        "Ideally not the ground floor, we were broken into at the last flat.",
        "Any floor you want for the new place?",
        "not the ground floor",
    ),
    (
        "night bus",
        "and the lad gets the night bus home so it can't finish too late",
        "My lad relies on the night bus, so anything near the route helps.",
        "How's your son getting back afterwards?",
        "night bus",
    ),
    (
        "colour blind",
        "and i'm colour blind so someone else has to check the samples",
        "Worth saying I'm colour blind, so I go by the codes on the samples.",
        "Are you happy to judge the paint samples yourself?",
        "colour blind, so no. my wife does that",
    ),
    (
        "no cash",
        "and i carry no cash these days so it's card or transfer only",
        "There's no cash on me most days, so it has to be card or transfer.",
        "How will you be paying at the trade counter?",
        "card. no cash on me ever",
    ),
    (
        "electric van",
        "and it's the electric van now so i need a charger near the site",
        "The electric van needs a charge halfway, so I plan round that.",
        "What are you driving to the job these days?",
        "the electric van",
    ),
    (
        "hay fever",
        "and my hay fever's murder when they're cutting the fields",
        "My hay fever is terrible this time of year, so windows shut in the van.",
        "Any reason to avoid the outdoor seating?",
        "hay fever",
    ),
    (
        "not the estate car",
        "and it'll be the small car not the estate car because the wife's got that",
        "I'll be in the small one, not the estate car, so no room for boards.",
        "Which car will you have for the trip to the tip?",
        "the small one, not the estate car",
    ),
    (
        "sister in Leeds",
        "and the kids are at my sister in Leeds for half the holidays",
        "The kids spend a chunk of the holidays at my sister in Leeds.",
        "Who's minding the kids while you're on the big job?",
        "my sister in Leeds",
    ),
    (
        "no red meat",
        "and we're no red meat in our house now so chicken or fish",
        "We've gone no red meat at home, so it's chicken or fish.",
        "Any food you want me to leave out of the barbecue list?",
        "no red meat",
    ),
    (
        "cycle to work",
        "and my other half will cycle to work from there so it needs a shed",
        "My partner would cycle to work from the new place, so bike storage matters.",
        "How does your partner get to work?",
        "cycle to work, most days",
    ),
    (
        "migraines",
        "and with my migraines i can't do the fluorescent lights for long",
        "Bright strip lights set off my migraines, so the showroom's a struggle.",
        "Is there anything that makes long days in the showroom hard?",
        "migraines. the lights",
    ),
    (
        "halal",
        "and the food has to be halal for half the lads",
        "Half of the lads eat halal, so the caterer needs to cover it.",
        "Anything the caterer should know about the crew?",
        "halal for most of them",
    ),
    (
        "twins",
        "and with the twins starting nursery the mornings are chaos",
        "The twins start nursery soon, so the mornings will be mad.",
        "What's making mornings tricky at the moment?",
        "the twins",
    ),
    (
        "not the early train",
        "and it's not the early train for me, i'm driving down the night before",
        "So not the early train, I'll drive down the night before instead.",
        "Shall I look at the first train down on the day?",
        "not the early train, no",
    ),
    (
        "tinnitus",
        "and with my tinnitus i need ear defenders on for any cutting",
        "My tinnitus has got worse, so the ear defenders stay on for cutting.",
        "Any kit you want added to the site list for yourself?",
        "ear defenders. tinnitus",
    ),
    (
        "window seat",
        "and get me a window seat if it's a plane because i get queasy",
        "A window seat if there's any choice, I feel sick in the middle.",
        "Any seat you want if I book the flight?",
        "window seat",
    ),
    (
        "no gluten",
        "and my daughter's on no gluten since the tests so watch the cake",
        "My daughter has to have no gluten since her tests came back.",
        "Anything the bakery should know for the birthday cake?",
        "no gluten, for my daughter",
    ),
    (
        "shared custody",
        "and with shared custody i only have the boys every other week",
        "We've got shared custody, so the boys are here every other week.",
        "Which weeks can the boys come with you to the site?",
        "shared custody, so alternate weeks",
    ),
    (
        "dog-friendly",
        "and it's got to be dog-friendly because the spaniel comes everywhere",
        "It needs to be dog-friendly, the spaniel comes with us.",
        "Is there anything that rules a holiday cottage out?",
        "dog-friendly, the spaniel comes",
    ),
    (
        "teetotal",
        "and i'm teetotal so don't put me down for the wine",
        "I'm teetotal these days, so skip me on the wine order.",
        "Shall I put you down for wine at the dinner?",
        "teetotal. a lemonade's fine",
    ),
    (
        "step-free",
        "and it has to be step-free because of the wheelchair",
        "My dad's wheelchair means it has to be step-free.",
        "Is there anything the venue has to have?",
        "step-free access",
    ),
    (
        "not the motorway",
        "and take me not the motorway but the back roads if the satnav allows it",
        "It's not the motorway for me, the back roads are slower but calmer.",
        "Motorway or the A roads for the drive?",
        "not the motorway",
    ),
    (
        "lactose-free",
        "and the milk in the van fridge has to be lactose-free for me",
        "Milk has to be lactose-free for me or I pay for it later.",
        "Anything to add to the site shopping?",
        "lactose-free milk",
    ),
    (
        "early riser",
        "and i'm an early riser so first slot of the day suits me",
        "I'm an early riser, so the first slot of the day suits me.",
        "Morning or afternoon slot for the van service?",
        "first thing. early riser",
    ),
    (
        "no peanuts",
        "and the lunch has to have no peanuts because of the youngest",
        "Anything we take has to have no peanuts, the youngest reacts badly.",
        "Anything to avoid in the picnic?",
        "no peanuts",
    ),
)
"""Each detail: its value and the four ways it is said (each holds the value)."""

_ERRANDS = (
    "drop the old hinges back at the trade counter",
    "pick up the worktop samples",
    "post the warranty card",
    "get the van washed",
    "collect the dry cleaning",
    "buy sealant and a new blade",
    "return the library books",
    "get a birthday card for the neighbour",
    "top up the screwwash",
    "take the cardboard to the tip",
    "pick up the prescription",
    "fix the shed door",
)
_VOICE = (
    "ok voice note while i'm driving so sorry if it comes out weird um can you write a "
    "message to the worktop people asking if they can bring the delivery round the back "
    "{c} and ask them about the offcuts as well yeah thanks",
    "right dictating this at the lights so bear with me, i need a quick text for the "
    "customer on the hill saying we're running a day behind on the units {c} and that the "
    "plumber will sort the sink end of the week ok cheers",
    "voice note, can you sort me a packing list for the trip up north with the family, "
    "the usual stuff plus the kids' things {c} and i'll check it tonight when i'm home",
    "ok so um thinking out loud here, help me plan the weekend so i get the garage cleared "
    "and still see the family {c} and there's the football on as well somewhere",
    "sorry driving so this is dictated, can you look into a place for the lads' night out "
    "after the big job finishes, nothing fancy {c} and somewhere we can actually hear each "
    "other talk",
    "voice message, i need a reply to the letting agent about the inspection at the new "
    "flat, they want me there all day and that's not happening {c} so ask them for a "
    "narrower window please",
)
_EMAIL = (
    "Hi,\n\nHope you're keeping well. Could you help me write to the holiday cottage people "
    "about the booking? {s} Mainly I want to know about parking for a van.\n\nThanks a lot,\n"
    "me",
    "Morning!\n\nA favour: can you draft a reply to the school about the trip form? {s} "
    "They want it back quickly and I've been on site all week.\n\nCheers",
    "Hello,\n\nI'm putting together a list for the kitchen showroom visit with a couple "
    "thinking of going with us. {s} Can you suggest what to bring and how long to "
    "allow?\n\nMany thanks,\nsent from my phone",
    "Hi there,\n\nThe family are coming for the weekend and I've offered to sort the food. "
    "{s} Could you come up with something easy for a crowd?\n\nThanks in advance",
    "Evening,\n\nCan you help with an email to the accountant? She wants to meet about the "
    "year end. {s} I'd like to offer a couple of options.\n\nAll the best",
)
_LIST = (
    "errands for tomorrow, put these in a sensible order for me:\n{items}\n\n{s}",
    "saturday jobs, help me fit them in round the kids:\n{items}\n\n{s}",
    "to do list before the holiday, anything i've missed?\n{items}\n\n{s}",
)
_TASKS = (
    "help me book the table for the team meal after the job",
    "sort the arrangements for my mum's visit",
    "plan the drive to the trade show",
    "find us a place for the weekend away",
    "put the crew's food order together",
    "book the van in for its service",
)
_FOLLOW = (
    "Thanks, that's everything I need for now. I'll put it together and send it over.",
    "Great, I'll get that sorted and come back with a couple of options.",
    "Perfect, leave it with me and I'll draft it.",
)


def _said(w: Writer, detail: tuple[str, str, str, str, str]) -> None:
    """One message holding the detail, said one of four ways; the reply never repeats it."""
    r = w.rng
    _value, clause, sentence, question, answer = detail
    way = r.choice(("voice", "voice", "email", "list", "answer"))
    if way == "answer":
        w.user(r.choice(_TASKS))
        w.say("assistant", f"Happy to. A quick question first: {question}")
        w.user(answer)
        w.say("assistant", r.choice(_FOLLOW))
        return
    if way == "voice":
        text = r.choice(_VOICE).replace("{c}", clause)
    elif way == "email":
        text = r.choice(_EMAIL).replace("{s}", sentence)
    else:
        items = "\n".join(f"- {e}" for e in r.sample(_ERRANDS, r.randint(4, 6)))
        text = r.choice(_LIST).replace("{items}", items).replace("{s}", sentence)
    w.user(text)
    w.say("assistant", w.reply((5, 9)))


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    details = r.sample(DETAILS, facts)
    starts = spread(r, turns - 3, facts, 3)
    for start, detail in zip(starts, details, strict=True):
        while w.turn + 1 < start:
            w.chatter()
        _said(w, detail)
        said = next(i for i in range(len(w.messages) - 1, 0, -1) if w.messages[i]["role"] == "user")
        w.plant("preference", detail[0], said)
    while w.turn + 1 < turns:
        w.chatter()


def generate(seed: int, *, turns: int = 440, facts: int = 20) -> Trajectory:
    """One ``blind8-asides`` conversation."""
    return build(
        seed,
        "b8-asides",
        turns,
        facts,
        _write,
        "You are a helpful assistant for a self-employed kitchen fitter with a young family.",
        "van",
    )
