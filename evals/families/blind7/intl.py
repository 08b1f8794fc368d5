"""``blind7-intl``: another language's names, dates and amounts inside English chat.

A freelance translator works for clients in Germany, France, Spain and Poland and keeps her
jobs straight with an assistant. Clients' names keep their letters (Łukasz Wiśniewski, Jürgen
Müller, Bénédicte Lefèvre, Íñigo Ibáñez); deadlines come as the client wrote them ("bis zum
3. März", "pour le 12 avril", "el 5 de mayo", "do 14 maja", "12/04" day first) or as an ISO
date in a calendar look-up; fees carry a decimal comma ("1.234,50 €", "2 450,00 zł"). Some
values are corrected later: a deadline moved, a fee revised, a contact replaced (the old one
then named by first name only). The fact is the value as written; its aliases are the English
forms a summary might use ("3 March", "€1,234.50", "Lukasz Wisniewski").
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from evals.families.blind6.base import dumps, timeline
from evals.families.blind7.base import Writer, build
from evals.families.facts import FactKind, PlantedFact
from evals.families.pools import MONTHS
from evals.families.trajectories import Trajectory

__all__ = ["LANGS", "PEOPLE", "generate", "plain"]

SYSTEM = "You are the assistant of a freelance translator (German, French, Spanish, Polish)."

LANGS = ("de", "fr", "es", "pl")
PEOPLE = {
    "de": ("Jürgen Müller", "Sabine Groß", "Dörte Schäfer", "Matthias Köhler", "Björn Weiß",
           "Ute Häberle"),
    "fr": ("Bénédicte Lefèvre", "Anaïs Girard", "Hélène Dubœuf", "François Mercier",
           "Noémie Rousseau", "Gaël Chevalier"),
    "es": ("Íñigo Ibáñez", "Begoña Muñoz", "Ainhoa Etxeberría", "Jesús Peña", "Maite Núñez",
           "Álvaro Cañete"),
    "pl": ("Łukasz Wiśniewski", "Małgorzata Żak", "Grzegorz Błaszczyk", "Zofia Kaczmarek",
           "Wojciech Dąbrowski", "Agnieszka Wróbel"),
}  # fmt: skip
"""Clients' contacts, one first name each, by language."""
FIRMS = {
    "de": ("the Munich law firm", "the Stuttgart engineering client", "the Hamburg agency"),
    "fr": ("the Lyon publisher", "the Bordeaux wine people", "the Paris agency"),
    "es": ("the Bilbao agency", "the Madrid museum", "the Seville tourism board"),
    "pl": ("the Warsaw agency", "the Kraków software client", "the Gdańsk shipyard people"),
}
MONTH_NAMES = {
    "de": ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September",
           "Oktober", "November", "Dezember"),
    "fr": ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre",
           "octobre", "novembre", "décembre"),
    "es": ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
           "septiembre", "octubre", "noviembre", "diciembre"),
    "pl": ("stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca", "sierpnia",
           "września", "października", "listopada", "grudnia"),
}  # fmt: skip


def plain(name: str) -> str:
    """``name`` without its diacritics, as an English keyboard types it."""
    name = name.replace("ł", "l").replace("Ł", "L").replace("ß", "ss").replace("œ", "oe")
    return "".join(c for c in unicodedata.normalize("NFD", name) if not unicodedata.combining(c))


# -- how each kind of value is written, by language -----------------------------------------

DATE_SAY = {
    "de": ('{f} forwarded this: "Wäre eine Lieferung bis zum {v} möglich? Vielen Dank!" '
           "can you put that deadline in for me",
           'email from {f}: "Die Frist ist der {v}, bitte pünktlich." add it to the list'),
    "fr": ('{f} wrote "Nous aurions besoin de la version finale pour le {v}, si possible." '
           "stick that in the calendar",
           'got this from {f}: "Livraison souhaitée le {v}." please log it'),
    "es": ('message from {f}: "La entrega sería el {v}, ¿te va bien?" i said yes, add it',
           '{f} says "necesitamos el texto para el {v}". put it down'),
    "pl": ('{f} just sent "Termin: do {v}." that\'s all, typical. add it',
           'from {f}: "Prosimy o tłumaczenie do {v}." log that one'),
}  # fmt: skip
DATE_FIX = {
    "de": ('{f} again: "Leider müssen wir die Frist auf den {v} verschieben." update it',
           'change of plan from {f}, now bis zum {v}'),
    "fr": ('{f} changed it: "finalement ce sera le {v}". update please',
           'new date from {f}, le {v} now'),
    "es": ('{f} moved it, "mejor el {v}". change it',
           'update from {f}: ahora el {v}'),
    "pl": ('{f} changed the deadline, now "do {v}"',
           'new date from {f}: do {v}, apparently'),
}  # fmt: skip
NUMERIC_SAY = (
    "{f} wants the glossary back by {v}, their way round so day first",
    "deadline for {f} is {v} (day then month, they're European)",
)
NUMERIC_FIX = ("{f} has pulled it forward, {v} now, day first as usual", "{f}: {v} instead")
MONEY_SAY = {
    "de": ("{f} confirmed the fee, {v} for the whole contract. log it",
           'PO from {f} came through: "Auftragswert {v} netto". save that'),
    "fr": ('{f} accepted the quote: "Montant total : {v} HT". note it down',
           "{f} will pay {v} for the brochure. log it"),
    "es": ('{f} said "el importe es de {v}" for the catalogue. save it',
           "{f} agreed {v} for the website job"),
    "pl": ('{f} agreed the rate, "{v} brutto" for the manual. log it',
           "{f} is paying {v} for the app strings"),
}  # fmt: skip
MONEY_FIX = (
    "{f} revised it, {v} now after they cut two chapters",
    "{f} came back with a new figure: {v}. update it",
    "correction from {f}: {v}, they forgot the rush surcharge",
)
NAME_SAY = (
    "new client contact at {f}: {v}. they'll send the style guide",
    "{f} have put me in touch with {v}, add to contacts",
    "signed with {f} today, my contact there is {v}",
)
NAME_FIX = (
    "{g} has left {f}, it's {v} I deal with now",
    "{g} is on leave for months, {f} gave me {v} instead",
    "{f} switched my contact from {g} to {v}",
)
TOOL_ASK = ("what's in the calendar for {f}?", "check when {f} is due", "pull up {f}'s job")
ACKS = ("Done.", "Added.", "Updated.", "Got it, it's in.", "Okay, changed on the list.")


class _Item:
    """One job's detail: a contact, a deadline or a fee, for a client in one language."""

    def __init__(self, w: Writer, kind: str, fixes: int) -> None:
        self.w, self.kind, self.fixes = w, kind, fixes
        firms = [(lang, firm) for lang in LANGS for firm in FIRMS[lang]]
        key = w.fresh(lambda: "|".join((kind, *w.rng.choice(firms))))  # one job a firm a kind
        self.lang, self.firm = key.split("|")[1:]
        self.numeric = kind == "date" and w.rng.random() < 0.25
        self.iso = kind == "date" and not self.numeric and w.rng.random() < 0.25
        self.values: list[str] = []
        self.at: list[int] = []
        self.last: PlantedFact | None = None

    # -- values -------------------------------------------------------------------------

    def _date(self) -> tuple[str, tuple[str, ...]]:
        r = self.w.rng
        key = self.w.fresh(lambda: f"{r.randint(1, 28)}/{r.randint(1, 12)}")
        day, month = (int(x) for x in key.split("/"))
        english = (f"{day} {MONTHS[month - 1]}", f"{MONTHS[month - 1]} {day}")
        if self.iso:
            return f"2026-{month:02d}-{day:02d}", (*english, f"{MONTHS[month - 1]} {day}, 2026")
        if self.numeric:
            return f"{day:02d}/{month:02d}", english
        name = MONTH_NAMES[self.lang][month - 1]
        if self.lang == "de":
            return f"{day}. {name}", english
        if self.lang == "es":
            return f"{day} de {name}", english
        return f"{day} {name}", english

    def _money(self) -> tuple[str, tuple[str, ...]]:
        r = self.w.rng
        cents = r.randint(30_000, 980_000) // 5 * 5
        whole, frac = divmod(cents, 100)
        grouped = f"{whole:,}"
        english = f"{grouped}.{frac:02d}"
        if self.lang == "pl":
            value = f"{grouped.replace(',', ' ')},{frac:02d} zł"
            return self.w.fresh(lambda: value), (f"{english} zł", f"PLN {english}")
        sep = " " if self.lang == "fr" else "."
        value = f"{grouped.replace(',', sep)},{frac:02d} €"
        return self.w.fresh(lambda: value), (f"€{english}", f"{english} euros")

    def _name(self) -> tuple[str, tuple[str, ...]]:
        value = self.w.pick(PEOPLE[self.lang])
        self.w.used.add(value.split()[0])  # one person per first name
        return value, (plain(value),) if plain(value) != value else ()

    def _value(self) -> tuple[str, tuple[str, ...]]:
        return {"date": self._date, "money": self._money, "name": self._name}[self.kind]()

    # -- turns --------------------------------------------------------------------------

    def _said(self, say: str, value: str) -> str:
        first = self.values[-1].split()[0] if self.kind == "name" and self.values else ""
        text = say.replace("{f}", self.firm).replace("{g}", first).replace("{v}", value)
        return text[0].upper() + text[1:]

    def _write(self, fix: bool) -> tuple[str, tuple[str, ...], int]:
        w, r = self.w, self.w.rng
        value, aliases = self._value()
        if self.iso:
            w.user(r.choice(TOOL_ASK).replace("{f}", self.firm))
            record = {"client": self.firm.removeprefix("the "), "due": value, "status": "open"}
            if fix:
                record["status"] = "moved"
            at = w.tool("calendar_lookup", {"client": self.firm}, dumps({"event": record}))
            w.say("assistant", "That's what the calendar has." if not fix else "It's moved.")
            return value, aliases, at
        pool: tuple[str, ...]
        if self.numeric:
            pool = NUMERIC_FIX if fix else NUMERIC_SAY
        elif self.kind == "date":
            pool = (DATE_FIX if fix else DATE_SAY)[self.lang]
        elif self.kind == "money":
            pool = MONEY_FIX if fix else MONEY_SAY[self.lang]
        else:
            pool = NAME_FIX if fix else NAME_SAY
        at = w.user(self._said(r.choice(pool), value))
        w.say("assistant", r.choice(ACKS))
        return value, aliases, at

    def state(self) -> None:
        value, aliases, at = self._write(fix=False)
        self.last = self.w.plant(_KIND[self.kind], value, at, aliases=aliases)
        self.values.append(value)
        self.at.append(at)

    def fix(self) -> None:
        if not self.values:
            self.w.chatter()
            return
        value, aliases, at = self._write(fix=True)
        assert self.last is not None
        self.w.supersede(self.last, at)
        self.last = self.w.plant(
            "correction",
            value,
            at,
            aliases=aliases,
            stale=self.values[-1],
            stale_index=self.at[-1],
            older=tuple(self.values[:-1]),
        )
        self.values.append(value)
        self.at.append(at)


_KIND: dict[str, FactKind] = {"date": "date", "money": "value", "name": "name"}


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    fixes = round(facts * 0.3)
    kinds = [("name", "date", "money", "date")[i % 4] for i in range(facts - fixes)]
    items = [_Item(w, kind, 0) for kind in kinds]
    for _ in range(fixes):
        r.choice(items).fixes += 1
    events: list[tuple[int, Callable[[], None]]] = []
    for item in items:
        start = r.randint(0, turns * 2 // 3)
        events.append((start, item.state))
        steps = sorted(r.sample(range(start + 2, turns - 2), item.fixes))
        events += [(t, item.fix) for t in steps]
    timeline(w, turns, events)


def generate(seed: int, *, turns: int = 430, facts: int = 20) -> Trajectory:
    """A ``blind7-intl`` conversation: names, dates and fees in their own language's forms."""
    return build(seed, "b7-intl", turns, facts, _write, SYSTEM, "desk")
