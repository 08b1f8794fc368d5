"""Ordinary turns that are not about any planted fact, but are full of values anyway.

People's small talk and errands carry times, prices, dates, names and reference numbers all the
time, so a fact cannot be told from filler by having a value. Every value here is drawn fresh
from the conversation's random stream (never a planted one: :func:`base.build` throws away a
draft where one collides).
"""

from __future__ import annotations

import json
import random

from evals.families.blind4.base import Convo
from evals.families.pools import MONTHS as MONTHS
from evals.families.pools import WEEKDAYS as DAYS

__all__ = ["Fresh", "advice_turn", "chatter_turn", "errand_turn", "filler_turn"]

FIRST = (
    "Tom",
    "Becky",
    "Dev",
    "Hannah",
    "Callum",
    "Nadia",
    "Grace",
    "Oliver",
    "Jess",
    "Sam",
    "Laura",
    "Kofi",
    "Ellie",
    "Rory",
    "Megan",
    "Luke",
    "Abi",
    "Dan",
    "Zara",
    "Ollie",
)
LAST = (
    "Parker",
    "Hughes",
    "Bennett",
    "Shaw",
    "Foster",
    "Marsh",
    "Lloyd",
    "Patel",
    "Reid",
    "Dixon",
    "Hale",
    "Barker",
    "Walsh",
    "Cole",
    "Hart",
    "Moss",
    "Rowe",
    "Booth",
)
PLACES = (
    "the garden centre",
    "Aldi",
    "the leisure centre",
    "the vet's",
    "the library",
    "B&Q",
    "the dentist",
    "the post office",
    "Nando's",
    "the farm shop",
    "the tip",
    "IKEA",
)


class Fresh:
    """Fresh filler values from a conversation's random stream."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def name(self) -> str:
        return self.rng.choice(FIRST)

    def full(self) -> str:
        return f"{self.rng.choice(FIRST)} {self.rng.choice(LAST)}"

    def time(self) -> str:
        return f"{self.rng.randint(7, 21)}:{self.rng.choice(('00', '15', '30', '45', '10', '50'))}"

    def date(self) -> str:
        return f"{self.rng.randint(1, 28)} {self.rng.choice(MONTHS)}"

    def day(self) -> str:
        return self.rng.choice(DAYS)

    def money(self) -> str:
        return f"£{self.rng.randint(3, 480)}.{self.rng.randint(0, 99):02d}"

    def code(self) -> str:
        letters = "".join(self.rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(2))
        return f"{letters}{self.rng.randint(10000, 99999)}"

    def num(self, lo: int = 2, hi: int = 60) -> int:
        return self.rng.randint(lo, hi)

    def place(self) -> str:
        return self.rng.choice(PLACES)


def _pairs(f: Fresh) -> list[tuple[str, str]]:
    return [
        (
            f"Ran into {f.name()} at {f.place()} earlier, she says hi. Anyway, is it worth "
            f"renewing the car insurance at {f.money()} or should I shop around?",
            "Say hi back! At that price it's worth ten minutes on a comparison site; renewal "
            "quotes are often higher than new-customer ones. Check the excess too.",
        ),
        (
            f"The bin men didn't come again. Council reference was {f.code()}, for what it's "
            "worth.",
            "Annoying. If it's a second miss, most councils let you log it online and they "
            "collect within two working days.",
        ),
        (
            f"What's a sensible amount to tip on a {f.money()} bill, roughly?",
            "Ten to twelve and a half percent is normal in the UK; check whether service was "
            "already added, because a lot of places include it.",
        ),
        (
            f"Kids are off on {f.date()} for inset day, typical. {f.name()}'s mum might take "
            f"them till {f.time()}.",
            "That helps. If she can't, the leisure centre usually runs a holiday club on "
            "inset days; they book up fast though.",
        ),
        (
            f"How long do I roast a {f.num(1, 3)}.{f.num(0, 9)}kg chicken for?",
            "About 20 minutes per kilo plus 20 at 190°C fan, then rest it for 15 before "
            "carving. The juices should run clear at the thickest part of the thigh.",
        ),
        (
            f"My step count today was {f.num(2000, 14000)}, which feels like cheating since "
            f"half of it was chasing the dog.",
            "Chasing the dog absolutely counts. Steps are steps.",
        ),
        (
            f"Parcel {f.code()} says delivered but it's not here. Driver was apparently "
            f"{f.name()} at {f.time()}.",
            "Check with neighbours and any safe place first; if it's not turned up within a "
            "day, the retailer (not the courier) is the one to chase.",
        ),
        (
            f"The boiler guy said {f.money()} for a service, is that a rip-off?",
            "That's within the usual range for a gas boiler service. An annual service is "
            "often required to keep the manufacturer's warranty valid.",
        ),
        (
            f"Quick one: is {f.day()} {f.date()} a bank holiday or am I thinking of next year?",
            "It depends on the year and which part of the UK you're in; the gov.uk bank "
            "holidays page lists them for England, Scotland and Northern Ireland.",
        ),
        (
            f"Watched the match last night, {f.num(0, 4)}-{f.num(0, 4)}. {f.name()} was "
            f"unbearable about it all morning.",
            "Sounds like a long morning. Was it at least a good game?",
        ),
        (
            f"Can you convert {f.num(120, 900)} grams of flour to cups? American recipe.",
            "Plain flour is roughly 125 g per US cup, so divide by 125. Spoon it into the "
            "cup rather than scooping, or you'll pack too much in.",
        ),
        (
            f"Train was {f.num(6, 45)} minutes late again. The {f.time()} is basically fiction.",
            "If it was over 15 minutes, you can usually claim Delay Repay on the operator's "
            "website within 28 days. Keep the ticket or a photo of it.",
        ),
        (
            f"{f.full()} from next door asked if we want to split a skip, {f.money()} each.",
            "Splitting is a good deal if you both have enough to fill it. Check whether it "
            "needs a permit to sit on the road.",
        ),
        (
            f"What's the weather looking like for {f.day()}? Thinking of a walk up the hill "
            f"around {f.time()}.",
            "I'd check the forecast closer to the day; hill weather changes fast. Take a "
            "layer either way, it's always colder at the top.",
        ),
        (
            f"Paid {f.money()} for a haircut, which is daylight robbery, but it looks fine.",
            "If it looks fine, that's half the battle. Barbers have gone up everywhere.",
        ),
        (
            f"The plumber's invoice has {f.code()} on it, do I need to keep it?",
            "Keep it with the house paperwork. Work guarantees usually need the invoice, and "
            "it helps if you sell.",
        ),
        (
            f"Is {f.num(18, 24)} degrees too warm for a baby's room at night?",
            "The usual guidance is 16 to 20°C. Lighter sleepwear or a lower-tog sleeping bag "
            "helps if the room runs warm.",
        ),
        (
            f"Got a letter saying the MOT is due {f.date()}. Where does the time go.",
            "You can book up to a month early and keep the same renewal date, which gives you "
            "time for any repairs.",
        ),
        (
            f"{f.name()} wants to do a pub quiz on {f.day()}, team of {f.num(3, 6)}. Any good "
            "team names?",
            "Some classics: 'Quizteama Aguilera', 'Let's Get Quizzical', 'The Quizzly Bears'. "
            "Puns are compulsory.",
        ),
        (
            f"How much should I be saving for a {f.num(2, 10)}-day trip? Flights were {f.money()}.",
            "Beyond the flights, budget for accommodation, food and local transport per day, "
            "plus about 10% spare. I can help break it down if you tell me where.",
        ),
        (
            "Honestly just need to vent, work's been a lot this week.",
            "That's fair. Want to talk it through, or would a distraction be more useful?",
        ),
        (
            f"Library says the book is due back {f.date()}, fine is {f.money()} a day after that?",
            "Fines vary by council and many libraries have dropped them for adults. The "
            "renewal is usually free online.",
        ),
        (
            f"Meter reading is {f.num(10000, 99999)}, should I send it to the supplier?",
            "Yes, sending readings keeps your bills accurate instead of estimated. Most "
            "suppliers take them in the app.",
        ),
        (
            "Do you reckon oat milk works in a white sauce?",
            "It does, as long as it's unsweetened. It can be a touch thinner, so cook the "
            "roux a little longer.",
        ),
    ]


def chatter_turn(convo: Convo, f: Fresh) -> None:
    """One small-talk turn: a user message with values, an assistant reply without them."""
    user, reply = convo.rng.choice(_pairs(f))
    convo.user(user)
    convo.say(reply)


def errand_turn(convo: Convo, f: Fresh) -> None:
    """One errand turn with a tool call whose result is full of fresh values."""
    kind = convo.rng.randrange(4)
    if kind == 0:
        town = convo.rng.choice(("Leeds", "Bristol", "York", "Cardiff", "Norwich", "Bath"))
        convo.user(f"What's it doing in {town} on {f.day()}?")
        convo.call(
            "get_weather",
            {"city": town, "day": f.day()},
            json.dumps(
                {
                    "city": town,
                    "high_c": f.num(4, 24),
                    "low_c": f.num(-2, 12),
                    "rain_chance": f"{f.num(5, 95)}%",
                    "wind_mph": f.num(3, 30),
                    "sunset": f.time(),
                }
            ),
        )
        convo.say("Mixed, by the look of it; take a coat if you're out in the evening.")
    elif kind == 1:
        convo.user("Anything in the diary I've forgotten this week?")
        convo.call(
            "list_events",
            {"range": "this_week"},
            json.dumps(
                {
                    "events": [
                        {"title": t, "start": f"{f.day()} {f.time()}", "with": f.full()}
                        for t in convo.rng.sample(
                            (
                                "Dentist",
                                "Parents' evening",
                                "Call with bank",
                                "Gym induction",
                                "Book club",
                                "Car service",
                                "Team lunch",
                                "Haircut",
                            ),
                            3,
                        )
                    ]
                }
            ),
        )
        convo.say("Three things this week; nothing clashes, but the second one is early-ish.")
    elif kind == 2:
        convo.user(f"Where's the parcel from {f.place()} got to?")
        ref = f.code()
        convo.call(
            "track_parcel",
            {"reference": ref},
            json.dumps(
                {
                    "reference": ref,
                    "status": convo.rng.choice(("in transit", "at depot", "out for delivery")),
                    "last_scan": f"{f.date()} {f.time()}",
                    "depot": convo.rng.choice(("Daventry", "Warrington", "Bellshill", "Crick")),
                    "eta": f.date(),
                }
            ),
        )
        convo.say("It's moving; the latest scan is from the depot and the estimate looks normal.")
    else:
        convo.user(f"How much is {f.num(20, 900)} euros in pounds today?")
        convo.call(
            "fx_rate",
            {"from": "EUR", "to": "GBP"},
            json.dumps({"pair": "EUR/GBP", "rate": f"0.8{f.num(10, 99)}", "as_of": f.time()}),
        )
        convo.say("Roughly that times 0.85, so a little under; card fees may add a bit on top.")


ADVICE = (
    (
        "How do I get the smell out of a washing machine?",
        "Run an empty hot wash at 60 or 90°C with a cup of white vinegar or a machine cleaner "
        "in the drum. Then pull out the detergent drawer and scrub it, the mould tends to live "
        "in the channels behind it. Wipe the rubber seal, especially the fold at the bottom "
        "where hair and coins collect, and leave the door and drawer open between washes so "
        "it can dry. If it still smells after that, check the filter at the bottom front: "
        "put a towel down first, there's always more water in it than you expect. Doing the "
        "hot empty wash once a month usually stops it coming back.",
    ),
    (
        "Any tips for getting a toddler to sleep past 5am?",
        "A few things tend to help. Blackout blinds matter more than people think, especially "
        "in summer when it's light early. Keep the room cool and the first feed or breakfast "
        "at a set time, not the moment they wake, so waking early isn't rewarded. Some "
        "families have luck with a sleep clock that changes colour when it's okay to get up. "
        "Look at the daytime nap too: a nap that's too long or too late can push the whole "
        "night earlier. Change one thing at a time and give it a week or two before judging; "
        "early waking is stubborn, and most of it fades by itself as they get older.",
    ),
    (
        "What's the least painful way to start running again?",
        "Start with walk-run intervals rather than trying to run the whole way: something like "
        "one minute running and ninety seconds walking, eight times, three times a week. Add a "
        "little each week, and don't increase your total time by more than about ten percent "
        "a week. Go slow enough that you could hold a conversation; most people who give up "
        "were running too fast. Decent shoes that fit matter more than expensive ones. If "
        "something hurts sharply rather than aches, stop and rest it for a few days. A couch "
        "to 5k app is a good structure if you like being told what to do.",
    ),
    (
        "Is it worth getting a water softener?",
        "It depends on how hard your water is and what bothers you. In hard-water areas a "
        "softener cuts limescale on taps, showers and in the kettle, and appliances like the "
        "boiler and washing machine tend to last longer. Against that: they cost several "
        "hundred pounds to fit, need salt topping up, take some space under the sink, and "
        "softened water isn't recommended for drinking or for making up baby formula, so you "
        "usually keep one tap unsoftened. A cheaper middle ground is a scale-reducing filter "
        "on the kettle and descaling the shower head every few months.",
    ),
    (
        "How do I stop the bathroom getting mouldy?",
        "Mould needs moisture, so it's mostly about getting the steam out. Run the extractor "
        "fan during and for twenty minutes after a shower, or open the window if there's no "
        "fan. Squeegee the tiles and screen after use, and leave the shower curtain spread "
        "out to dry rather than bunched. For existing mould on sealant, a mould spray works "
        "on the surface, but if it's black under the silicone the only real fix is cutting the "
        "sealant out and redoing it. Keep the heating on low in winter too: a cold bathroom "
        "gets condensation on every surface.",
    ),
    (
        "What should I ask when viewing a flat to rent?",
        "Worth asking: how much the bills usually come to, and which are included; the council "
        "tax band; how long the last tenants stayed and why they left; whether the deposit is "
        "protected and in which scheme; who manages repairs and how quickly; and whether "
        "there's any damp, especially in bedrooms in winter. Check the water pressure, look "
        "inside cupboards and behind furniture for mould, test your phone signal in each "
        "room, and ask about the broadband. Take photos of everything on the day you move in, "
        "it makes the deposit conversation much easier later.",
    ),
    (
        "Any ideas for using up a glut of courgettes?",
        "Plenty. Grate them into fritters with feta and mint; roast them in thick slices with "
        "garlic and chilli; stir grated courgette into a pasta sauce where it melts away; "
        "bake a courgette loaf cake, which works like carrot cake; or slice them into ribbons "
        "raw with lemon and olive oil. For the big ones that got away from you, halve them, "
        "scoop out the seeds and stuff them with rice or mince. They also freeze well grated, "
        "squeezed and bagged in portions, for soups and sauces later in the year.",
    ),
    (
        "How do I keep a sourdough starter alive while I'm away?",
        "For up to about two weeks, feed it, let it sit for an hour, then put it in the "
        "fridge with the lid on; it'll be fine and just need two or three feeds to perk up "
        "when you're back. For longer, you can dry it: spread a thin layer on baking paper, "
        "let it dry completely, crumble it and keep it in a jar. To revive it, mix the "
        "flakes with water and a little flour and feed it daily for a few days. A dark liquid "
        "on top when you get back is just hooch, pour it off or stir it in.",
    ),
)


def advice_turn(convo: Convo, f: Fresh) -> None:
    """One longer how-to turn: a short question, a full assistant answer, no values in it."""
    question, answer = convo.rng.choice(ADVICE)
    convo.user(question)
    convo.say(answer)


def filler_turn(convo: Convo, f: Fresh) -> None:
    """Chatter, an errand with a tool, or a how-to answer."""
    roll = convo.rng.random()
    if roll < 0.5:
        chatter_turn(convo, f)
    elif roll < 0.75:
        errand_turn(convo, f)
    else:
        advice_turn(convo, f)
