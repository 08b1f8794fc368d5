"""``b10-intl``: a documentary producer's Vietnamese, Brazilian, Swahili and Greek arrangements.

The producer passes on names and dates as the local people wrote them: Vietnamese names with
their tones (``Nguyễn Thị Thu Hà``), Brazilian Portuguese ones (``Conceição Araújo``), Swahili
ones, Greek ones in Greek script (``Ελένη Καραγιάννη``); dates day-first and written out in the
local language (``ngày 14 tháng 3 năm 2027``, ``14 de março de 2027``, ``tarehe 14 Machi
2027``, ``14 Μαρτίου 2027``) or day-first in figures (``14/3/2027``, ``14/03/2027``). Later a
contact is replaced by another person or a date moves (a ``correction``), forty turns or more
after the value it replaces, which is not said again. Aliases: a name without its diacritics
(or romanised, for Greek), a date in English (``14 March 2027``, ``March 14, 2027``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from functools import partial

from evals.families.blind6 import base as b6
from evals.families.blind10.base import Writer, build
from evals.families.facts import PlantedFact
from evals.families.pools import MONTHS
from evals.families.trajectories import Trajectory

__all__ = ["GREEK", "MONTH_NAMES", "NAMES", "SUBJECTS", "generate", "plain"]

NAMES: dict[str, tuple[str, ...]] = {
    "vi": ("Nguyễn Thị Thu Hà", "Trần Quốc Bảo", "Phạm Minh Đức", "Lê Thị Hồng Nhung",
           "Võ Thanh Tùng", "Đặng Văn Lâm", "Hoàng Thị Mỹ Linh", "Bùi Xuân Phước"),
    "pt": ("João Guimarães", "Conceição Araújo", "Thiago Simões", "Luíza Brandão",
           "Márcio Gonçalves", "Sebastião Peçanha", "Gabriela Patrício", "Tânia Assunção"),
    "sw": ("Neema Mwakasege", "Baraka Njoroge", "Zawadi Kimaro", "Juma Abdallah",
           "Rehema Mwinyi", "Imani Otieno", "Faraji Mrisho", "Subira Lyimo"),
    "el": ("Νίκος Παπαδάκης", "Ελένη Καραγιάννη", "Γιώργος Οικονόμου", "Δήμητρα Αλεξίου",
           "Σταύρος Μαυρίδης", "Κατερίνα Ζαχαρίου", "Θανάσης Βλάχος", "Σοφία Λαμπράκη"),
}  # fmt: skip
"""People by language, written as they write themselves."""

GREEK = {
    "Νίκος Παπαδάκης": "Nikos Papadakis",
    "Ελένη Καραγιάννη": "Eleni Karagianni",
    "Γιώργος Οικονόμου": "Giorgos Oikonomou",
    "Δήμητρα Αλεξίου": "Dimitra Alexiou",
    "Σταύρος Μαυρίδης": "Stavros Mavridis",
    "Κατερίνα Ζαχαρίου": "Katerina Zachariou",
    "Θανάσης Βλάχος": "Thanasis Vlachos",
    "Σοφία Λαμπράκη": "Sofia Lamprakis",
}
"""The romanised form of each Greek name (its alias)."""

MONTH_NAMES: dict[str, tuple[str, ...]] = {
    "pt": ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto",
           "setembro", "outubro", "novembro", "dezembro"),
    "sw": ("Januari", "Februari", "Machi", "Aprili", "Mei", "Juni", "Julai", "Agosti",
           "Septemba", "Oktoba", "Novemba", "Desemba"),
    "el": ("Ιανουαρίου", "Φεβρουαρίου", "Μαρτίου", "Απριλίου", "Μαΐου", "Ιουνίου",
           "Ιουλίου", "Αυγούστου", "Σεπτεμβρίου", "Οκτωβρίου", "Νοεμβρίου", "Δεκεμβρίου"),
}  # fmt: skip
"""Month names in the local date form (Greek in the genitive, as dates write them)."""

SUBJECTS: dict[str, tuple[tuple[str, str], ...]] = {
    "vi": (("date", "Hội An lantern shoot"), ("date", "boat builders interview"),
           ("name", "fixer in Huế"), ("name", "translator for Đà Nẵng")),
    "pt": (("date", "Recife carnival shoot"), ("date", "São Luís archive visit"),
           ("name", "driver in Salvador"), ("name", "sound recordist from Belém")),
    "sw": (("date", "Zanzibar dhow shoot"), ("date", "Arusha market filming"),
           ("name", "fixer in Mombasa"), ("name", "guide on Pemba")),
    "el": (("date", "Thessaloniki archive visit"), ("date", "Naxos olive harvest shoot"),
           ("name", "producer in Athens"), ("name", "translator on Crete")),
}  # fmt: skip
"""What each language's values are about: a date for an event, a name for a role."""

_DATE_FIRST = (
    "the {s} is set for {v}",
    "{s}: {v}",
    "they've confirmed the {s}, their email says {v}",
    "pasting from the schedule they sent - {s} '{v}'",
)
_NAME_FIRST = (
    "our {s} is {v}",
    "{s} will be {v}, they come highly recommended",
    "contact for the {s}: {v}",
)
_DATE_AGAIN = (
    "the {s} has moved to {v}",
    "new date for the {s}: {v}",
    "{s} pushed back, now {v}",
)
_NAME_AGAIN = (
    "we have a new {s}, it's {v} now",
    "change of {s}: {v} is taking over",
    "{s} is now {v}, the other one dropped out",
)


def plain(name: str) -> str:
    """``name`` without diacritics (``Đ`` as ``D``), or romanised if it is Greek."""
    if name in GREEK:
        return GREEK[name]
    stripped = name.replace("Đ", "D").replace("đ", "d")
    decomposed = unicodedata.normalize("NFKD", stripped)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _date(w: Writer, lang: str) -> tuple[str, tuple[str, ...]]:
    r = w.rng
    day, month = map(int, w.fresh(lambda: f"{r.randint(1, 28)} {r.randint(1, 12)}").split())
    english = MONTHS[month - 1]
    aliases = (f"{day} {english} 2027", f"{english} {day}, 2027")
    if r.random() < 0.35:  # day-first figures, zero-padded or not
        figures = f"{day:02d}/{month:02d}/2027" if lang in ("pt", "sw") else f"{day}/{month}/2027"
        return figures, aliases
    if lang == "vi":
        return f"ngày {day} tháng {month} năm 2027", aliases
    if lang == "pt":
        return f"{day} de {MONTH_NAMES['pt'][month - 1]} de 2027", aliases
    if lang == "sw":
        return f"tarehe {day} {MONTH_NAMES['sw'][month - 1]} 2027", aliases
    return f"{day} {MONTH_NAMES['el'][month - 1]} 2027", aliases


def _value(w: Writer, kind: str, lang: str) -> tuple[str, tuple[str, ...]]:
    if kind == "date":
        return _date(w, lang)
    name = w.drawn(NAMES[lang])
    return name, (plain(name),) if plain(name) != name else ()


def _state(w: Writer, lang: str, kind: str, subject: str, chain: list[PlantedFact]) -> None:
    value, aliases = _value(w, kind, lang)
    templates: tuple[str, ...]
    if chain:
        templates = _DATE_AGAIN if kind == "date" else _NAME_AGAIN
    else:
        templates = _DATE_FIRST if kind == "date" else _NAME_FIRST
    at = w.user(w.rng.choice(templates).replace("{s}", subject).replace("{v}", value))
    if chain:
        chain.append(w.replace(chain[-1], value, at, aliases=aliases))
    else:
        chain.append(w.plant("date" if kind == "date" else "name", value, at, aliases=aliases))
    w.say("assistant", w.short())


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    fixes = facts * 3 // 10
    every = [(lang, kind, s) for lang, subjects in SUBJECTS.items() for kind, s in subjects]
    chosen = r.sample(every, facts - fixes)
    events: list[tuple[int, Callable[[], None]]] = []
    latest = turns - 52
    fixed = set(r.sample(range(len(chosen)), fixes))
    for k, (lang, kind, subject) in enumerate(chosen):
        chain: list[PlantedFact] = []
        at = r.randint(2, latest if k not in fixed else max(2, latest - 10))
        events.append((at, partial(_state, w, lang, kind, subject, chain)))
        if k in fixed:
            later = r.randint(at + 40, max(at + 40, turns - 12))
            events.append((later, partial(_state, w, lang, kind, subject, chain)))
    b6.timeline(w, turns, events)


def generate(seed: int, turns: int = 440, facts: int = 20) -> Trajectory:
    """One documentary producer's conversation: local names and dates, some changed."""
    return build(
        seed,
        "b10-intl",
        turns,
        facts,
        _write,
        "You are a helpful assistant for a documentary producer shooting in several countries.",
        "documentary",
    )
