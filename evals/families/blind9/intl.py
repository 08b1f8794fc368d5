# ruff: noqa: RUF001, RUF002 - Turkish names are spelt with the dotless i
"""``blind9-intl``: a PhD student's collaborators abroad, their names, dates and times as written.

The student works with people in the Netherlands, Norway and Denmark, Turkey and the Czech
Republic, and passes on what they write: names with their diacritics (``Åsa Lindström``,
``Çağla Yıldırım``, ``Kateřina Horáková``), day-first dates in the local way (``14-03-2027``,
``14.3.2027``, ``14.03.2027``, ``14. 3. 2027``) and 24-hour times (``14.30``, ``14:30``). Then a
few are corrected (a meeting moved, a time changed, a contact replaced). Aliases: names without
diacritics, dates in English (``14 March 2027``, ``March 14, 2027``), the time with the other
separator.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from functools import partial

from evals.families.blind6 import base as b6
from evals.families.blind9.base import Writer, build, correct
from evals.families.facts import FactKind, PlantedFact
from evals.families.pools import MONTHS
from evals.families.trajectories import Trajectory

__all__ = ["NAMES", "ascii_form", "generate"]

NAMES = {
    "nl": ("Joëlle de Vries", "Chloë Bakker", "Daniël Verhoeven", "Noël van Dijk", "Zoë Jansen"),
    "no": ("Søren Ødegård", "Åsa Lindstrøm", "Bjørn Håland", "Sigrún Bæk", "Jørgen Aasmundsen"),
    "tr": ("Çağla Yıldırım", "Gökhan Öztürk", "Şebnem Aydın", "İlkay Güneş", "Barış Çelik"),
    "cs": ("Jiří Dvořák", "Kateřina Horáková", "Tomáš Černý", "Zdeňka Říhová", "Lukáš Kučera"),
}
"""Contacts by language."""

PLACES = {
    "nl": ("the lab visit in Utrecht", "the Leiden workshop", "my host at Utrecht"),
    "no": ("the Bergen summer school", "the data meeting in Aarhus", "my co-author in Bergen"),
    "tr": ("the fieldwork trip to Ankara", "the İzmir conference", "my contact at Ankara"),
    "cs": ("the Brno seminar", "the archive appointment in Prague", "the examiner from Brno"),
}
"""Per language: two events (a date and a time each) and a person's role."""

_FOLD = str.maketrans({"ø": "o", "Ø": "O", "æ": "ae", "Æ": "Ae", "ı": "i", "İ": "I", "ð": "d"})


def ascii_form(name: str) -> str:
    """``name`` without diacritics (``Søren Ødegård`` -> ``Soren Odegard``)."""
    text = unicodedata.normalize("NFKD", name.translate(_FOLD))
    return "".join(c for c in text if not unicodedata.combining(c))


def _date(w: Writer, lang: str) -> tuple[str, tuple[str, ...]]:
    r = w.rng
    d, m = w.fresh(lambda: f"{r.randint(10, 28)}/{r.randint(1, 12)}").split("/")
    month = MONTHS[int(m) - 1]
    value = {
        "nl": f"{d}-{int(m):02d}-2027",
        "no": f"{d}.{m}.2027",
        "tr": f"{d}.{int(m):02d}.2027",
        "cs": f"{d}. {m}. 2027",
    }[lang]
    return value, (f"{d} {month} 2027", f"{month} {d}, 2027")


def _time(w: Writer, lang: str) -> tuple[str, tuple[str, ...]]:
    colon = w.time()
    dotted = colon.replace(":", ".")
    if lang in ("nl", "no"):
        return dotted, (colon,)
    return colon, (dotted,)


def _name(w: Writer, lang: str) -> tuple[str, tuple[str, ...]]:
    name = w.pick(NAMES[lang])
    return name, (ascii_form(name),)


_SAY: dict[str, tuple[str, ...]] = {
    "date": (
        "{e} is on {v}, that's what the email says",
        "got the confirmation for {e}: {v}",
        "pasting from their message -> '{e}: {d} {v}'",
    ),
    "time": (
        "{e} starts at {v} their time",
        "they wrote '{v}' for {e}, twenty-four hour clock obviously",
        "for {e} it's {v} sharp apparently",
    ),
    "name": (
        "{e} is {v}, i'll be emailing them a lot",
        "ok so {e} will be {v}",
        "my supervisor says {e} is {v}, can you help me write a first email",
    ),
}
_FIX: dict[str, tuple[str, ...]] = {
    "date": (
        "they moved {e} to {v}",
        "turns out {e} clashes with a holiday there, it's {v} now",
        "scratch that date for {e}, new one is {v}",
    ),
    "time": (
        "{e} is {v} now, they changed the room too",
        "new time for {e}: {v}",
        "turns out {e} runs later, {v}",
    ),
    "name": (
        "change of plan, {e} is {v} now",
        "turns out {e} has changed, it'll be {v}",
        "they've passed me on, {e} is {v} from now on",
    ),
}
_DATE_WORD = {"nl": "datum", "no": "dato", "tr": "tarih", "cs": "datum"}
_KIND: dict[str, FactKind] = {"date": "date", "time": "value", "name": "name"}


def _state(w: Writer, what: str, lang: str, event: str, chain: list[PlantedFact]) -> None:
    maker = {"date": _date, "time": _time, "name": _name}[what]
    value, aliases = maker(w, lang)
    text = w.rng.choice((_FIX if chain else _SAY)[what])
    text = text.replace("{d}", _DATE_WORD[lang])
    at = w.user(text.replace("{e}", event).replace("{v}", value))
    if chain:
        chain.append(correct(w, chain[-1], value, at, aliases=aliases))
    else:
        chain.append(w.plant(_KIND[what], value, at, aliases=aliases))
    w.say("assistant", w.short() if w.rng.random() < 0.5 else w.reply((2, 5)))


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    subjects: list[tuple[str, str, str]] = []
    for lang, (one, two, role) in PLACES.items():
        subjects += [("date", lang, one), ("time", lang, two), ("name", lang, role)]
        subjects += [("date", lang, two), ("time", lang, one)]
    fixes = min(6, facts // 3)
    chosen = r.sample(subjects, facts - fixes)
    extra = [0] * len(chosen)
    for k in r.sample(range(len(chosen)), fixes):
        extra[k] += 1
    events: list[tuple[int, Callable[[], None]]] = []
    for (what, lang, event), n in zip(chosen, extra, strict=True):
        chain: list[PlantedFact] = []
        for t in b6.spread(r, turns - 15, n + 1, min(40, (turns - 15) // (n + 1)) if n else 1):
            events.append((t, partial(_state, w, what, lang, event, chain)))
    b6.timeline(w, turns, events)


def generate(seed: int, turns: int = 450, facts: int = 20) -> Trajectory:
    """A PhD student's conversation: ``facts`` foreign names, dates and times, some corrected."""
    return build(
        seed,
        "b9-intl",
        turns,
        facts,
        _write,
        "You are an assistant helping a PhD student organise research visits and collaborators.",
        "phd",
    )
