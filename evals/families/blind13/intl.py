# ruff: noqa: RUF001 - names and dates in Georgian, Armenian, Hebrew and Ethiopic script
"""``blind13-intl``: a folk festival's Georgian, Armenian, Hebrew and Amharic contacts and dates.

The festival's programmer books four ensembles: a polyphonic choir from Tbilisi, a duduk
quartet from Yerevan, a klezmer band from Haifa and an azmari group from Addis Ababa. Each has
an agent, a tour manager, an arrival date and a concert date. Names are written in their own
script (Georgian Mkhedruli, Armenian, Hebrew, Ethiopic), with the romanised form beside them
now and then; dates in each language's own form (:func:`native_date`), the Amharic ones in the
Ethiopian calendar (:func:`ethiopian`). A value is stated in the programmer's English sentence
or in the ensemble's email in its own language (found by ``search_email``); some are replaced
45 or more turns later, by the programmer or by an email marking the change.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Callable

from evals.families.blind6.base import build, spread, timeline
from evals.families.blind13.base import Writer, writer
from evals.families.facts import FactKind, PlantedFact
from evals.families.pools import MONTHS
from evals.families.trajectories import Trajectory

__all__ = ["ENSEMBLES", "MONTH_NAMES", "NAMES", "ethiopian", "generate", "native_date"]

LANGS = ("ka", "hy", "he", "am")

ENSEMBLES = {
    "ka": "the Tbilisi choir",
    "hy": "the Yerevan duduk quartet",
    "he": "the Haifa klezmer band",
    "am": "the Addis Ababa azmari group",
}

NAMES: dict[str, tuple[tuple[str, str], ...]] = {
    "ka": (
        ("ნინო ბერიძე", "Nino Beridze"), ("გიორგი კაპანაძე", "Giorgi Kapanadze"),
        ("თამარ ლომიძე", "Tamar Lomidze"), ("ლევან ჩხეიძე", "Levan Chkheidze"),
        ("ეკა გელაშვილი", "Eka Gelashvili"), ("დავით მაისურაძე", "Davit Maisuradze"),
    ),
    "hy": (
        ("Անի Պետրոսյան", "Ani Petrosyan"), ("Արամ Հակոբյան", "Aram Hakobyan"),
        ("Լուսինե Գրիգորյան", "Lusine Grigoryan"), ("Տիգրան Սարգսյան", "Tigran Sargsyan"),
        ("Նարեկ Մկրտչյան", "Narek Mkrtchyan"), ("Մարինե Ավետիսյան", "Marine Avetisyan"),
    ),
    "he": (
        ("נועה לוי", "Noa Levi"), ("יונתן כהן", "Yonatan Cohen"),
        ("מיכל אברהם", "Michal Avraham"), ("אורי פרידמן", "Uri Friedman"),
        ("תמר שפירא", "Tamar Shapira"), ("אביגיל רוזן", "Avigail Rosen"),
    ),
    "am": (
        ("ሰላም ተስፋዬ", "Selam Tesfaye"), ("ዮሐንስ ገብረመድህን", "Yohannes Gebremedhin"),
        ("መቅደስ አበበ", "Mekdes Abebe"), ("ዳዊት ታደሰ", "Dawit Tadesse"),
        ("ሄለን ወልደማርያም", "Helen Woldemariam"), ("ብርሃኑ ከበደ", "Birhanu Kebede"),
    ),
}  # fmt: skip
"""Each language's people: ``(name in its script, romanised)``."""

MONTH_NAMES = {
    "ka": ("იანვარი", "თებერვალი", "მარტი", "აპრილი", "მაისი", "ივნისი", "ივლისი", "აგვისტო",
           "სექტემბერი", "ოქტომბერი", "ნოემბერი", "დეკემბერი"),
    "hy": ("հունվարի", "փետրվարի", "մարտի", "ապրիլի", "մայիսի", "հունիսի", "հուլիսի",
           "օգոստոսի", "սեպտեմբերի", "հոկտեմբերի", "նոյեմբերի", "դեկտեմբերի"),
    "he": ("ינואר", "פברואר", "מרץ", "אפריל", "מאי", "יוני", "יולי", "אוגוסט", "ספטמבר",
           "אוקטובר", "נובמבר", "דצמבר"),
    "am": ("መስከረም", "ጥቅምት", "ኅዳር", "ታኅሣሥ", "ጥር", "የካቲት", "መጋቢት", "ሚያዝያ", "ግንቦት",
           "ሰኔ", "ሐምሌ", "ነሐሴ", "ጳጉሜ"),
}  # fmt: skip
"""Month names: Georgian and Hebrew nominative, Armenian genitive, Ethiopian months."""


def ethiopian(day: datetime.date) -> tuple[int, int, int]:
    """``(year, month, day)`` of a Gregorian date in the Ethiopian calendar.

    The Ethiopian year begins on 11 September (12 September before a Gregorian leap year) and
    has twelve months of thirty days and a thirteenth of five or six.
    """

    def new_year(y: int) -> datetime.date:
        leap_next = (y + 1) % 4 == 0 and ((y + 1) % 100 != 0 or (y + 1) % 400 == 0)
        return datetime.date(y, 9, 12 if leap_next else 11)

    start = new_year(day.year)
    if day < start:
        start = new_year(day.year - 1)
    days = (day - start).days
    return start.year - 7, days // 30 + 1, days % 30 + 1


def native_date(lang: str, day: datetime.date) -> str:
    """``day`` as the language writes it (Amharic in the Ethiopian calendar)."""
    months = MONTH_NAMES[lang]
    if lang == "ka":
        return f"{day.day} {months[day.month - 1]} {day.year}"
    if lang == "hy":
        return f"{day.day} {months[day.month - 1]} {day.year} թ."
    if lang == "he":
        return f"{day.day} ב{months[day.month - 1]} {day.year}"
    year, month, d = ethiopian(day)
    return f"{months[month - 1]} {d} ቀን {year} ዓ.ም."


SLOTS = ("agent", "tour manager", "arrival", "concert")
"""Each ensemble's four details."""

_LABELS = {
    "ka": ("აგენტი", "ტურის მენეჯერი", "ჩამოსვლა", "კონცერტი"),
    "hy": ("Գործակալ", "Շրջագայության ղեկավար", "Ժամանում", "Համերգ"),
    "he": ("סוכן", "מנהל סיבוב ההופעות", "הגעה", "הופעה"),
    "am": ("ወኪል", "የጉብኝት አስተባባሪ", "መድረሻ", "ኮንሰርት"),
}
_GREET = {
    "ka": ("გამარჯობა!", "პატივისცემით,\nანსამბლის ოფისი"),
    "hy": ("Բարև Ձեզ,", "Հարգանքով՝\nանսամբլի գրասենյակ"),
    "he": ("שלום רב,", "בברכה,\nמשרד הלהקה"),
    "am": ("ሰላም ጤና ይስጥልኝ፣", "ከሰላምታ ጋር\nየቡድኑ ቢሮ"),
}
_CHANGED = {"ka": "(შეიცვალა)", "hy": "(փոփոխված)", "he": "(עודכן)", "am": "(ተቀይሯል)"}

_SAY_NAME = (
    "{ens}'s {slot} is {v}",
    "for {ens} the {slot} will be {v}, i'll copy them in on everything",
    "note that {v} is the {slot} for {ens}",
)
_SAY_DATE = {
    "arrival": ("{ens} land on {v}, going by their letter", "{ens} arrive {v}, put that down"),
    "concert": ("{ens} play on {v}", "the concert for {ens} is {v}, main tent"),
}
_NEW_NAME = (
    "{ens} have a new {slot} now, {v}, the other one's left the agency",
    "the {slot} for {ens} is {v} from now on",
)
_NEW_DATE = (
    "{ens} changed flights, it's {v} for the {slot} now",
    "{ens} moved the {slot} to {v}, visa timing",
)
_FIND = (
    "anything in from {ens}? check my email",
    "can you find the latest email from {ens}",
    "look through my inbox for {ens}'s message",
)
_FOUND = (
    "Found it. It's in their language, but the detail is in the line I've pulled out above.",
    "Here's their message; the new detail is in the middle line.",
    "That's the one from them. Short and to the point.",
)


def _romanised(value: str) -> str:
    return next(alias for names in NAMES.values() for n, alias in names if n == value)


def _value(w: Writer, lang: str, slot: str) -> tuple[FactKind, str, tuple[str, ...]]:
    r = w.rng
    if slot in ("agent", "tour manager"):
        name = w.fresh(lambda: r.choice(NAMES[lang])[0])
        return "name", name, (_romanised(name),)
    day = w.fresh(lambda: str(datetime.date(2027, 6, 1) + datetime.timedelta(r.randint(0, 90))))
    d = datetime.date.fromisoformat(day)
    month = MONTHS[d.month - 1]
    return "date", native_date(lang, d), (f"{d.day} {month} 2027", f"{month} {d.day}, 2027")


def _state(w: Writer, lang: str, slot: str, held: dict[str, PlantedFact], email: bool) -> None:
    """State (or replace) one slot of one ensemble, in English or in their email."""
    r = w.rng
    kind, value, aliases = _value(w, lang, slot)
    ens = ENSEMBLES[lang]
    prev = held.get("fact")
    if email:
        w.user(r.choice(_FIND).format(ens=ens))
        hello, bye = _GREET[lang]
        label = _LABELS[lang][SLOTS.index(slot)]
        mark = f" {_CHANGED[lang]}" if prev else ""
        body = f"{hello}\n{label}: {value}{mark}\n{bye}"
        at = w.tool("search_email", {"query": ens.removeprefix("the ")}, body)
        w.say("assistant", r.choice(_FOUND))
    else:
        said = value
        if kind == "name" and r.random() < 0.5:
            said = f"{value} ({aliases[0]})"
        if prev is None:
            pool = _SAY_NAME if kind == "name" else _SAY_DATE[slot]
        else:
            pool = _NEW_NAME if kind == "name" else _NEW_DATE
        at = w.user(r.choice(pool).format(ens=ens, slot=slot, v=said))
        w.say("assistant", w.short() if prev else w.reply((2, 5)))
    if prev is None:
        held["fact"] = w.plant(kind, value, at, aliases=aliases)
        return
    w.supersede(prev, at)
    held["fact"] = w.plant(
        "correction", value, at, aliases=aliases, stale=prev.value, stale_index=prev.message_index
    )


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    replaced = facts // 4
    stated = facts - replaced
    slots = r.sample([(lang, slot) for lang in LANGS for slot in SLOTS], stated)
    starts = spread(r, int(turns * 0.6), stated, 3)
    again = set(r.sample(range(stated), replaced))
    events: list[tuple[int, Callable[[], None]]] = []
    for k, ((lang, slot), start) in enumerate(zip(slots, starts, strict=True)):
        held: dict[str, PlantedFact] = {}
        email = r.random() < 0.45
        events.append((start, functools.partial(_state, w, lang, slot, held, email)))
        if k in again:
            later = min(start + r.randint(45, 150), turns - 4)
            email = r.random() < 0.45
            events.append((later, functools.partial(_state, w, lang, slot, held, email)))
    timeline(w, turns, events)


SYSTEM = "You are a helpful assistant to the programmer of a summer folk music festival."


def generate(seed: int, *, turns: int = 430, facts: int = 20) -> Trajectory:
    """Seed ``seed``'s conversation of ``turns`` turns with ``facts`` facts."""
    return build(
        seed, "b13-intl", turns, facts, _write, SYSTEM, writer=writer("festival"), prefix="blind13"
    )
