"""``multilingual``: names with diacritics and dates written another language's way.

An English conversation with someone whose life spans a few countries: names such as Dörte
Köhler, Begoña Ibáñez or Łukasz Wróbel, and dates as a German, Spanish, French, Italian or
Portuguese letter writes them ("3. März 2026", "14 de marzo de 2026", "14 mars 2026"), told in
English sentences and in short sentences of the language itself ("Der Termin beim Notar ist am
3. März 2026."). A date's aliases are its English and ISO forms (and ``dd.mm.yyyy`` for a German
one), a name's its letters without diacritics, so a summary that translates or transliterates
still counts. The small talk carries other such names and dates, drawn fresh.
"""

from __future__ import annotations

import random
import unicodedata

from evals.families.blind.base import MONTHS, Writer, spread

__all__ = ["LOCALE_MONTHS", "NAMES", "fold", "write"]

LOCALE_MONTHS = {
    "de": "Januar Februar März April Mai Juni Juli August September Oktober November Dezember",
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre "
    "diciembre",
    "fr": "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    "it": "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre "
    "dicembre",
    "pt": "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro "
    "dezembro",
}
"""Month names by language, January first."""

NAMES = {
    "de": ("Jürgen Dörte Bärbel Jörg Björn Sönke Gisela Ulf", "Köhler Schäfer Krämer Böhm Jäger"),
    "es": ("José Begoña Iñaki Núria Sofía Rubén Inés Ángel", "Núñez Ibáñez Muñoz Peña Castaño"),
    "fr": ("François Hélène Zoé Gaëlle Loïc Jérôme Élodie Anaïs", "Lefèvre Bénard Côté Pâquet"),
    "it": ("Niccolò Mattia Ilaria Tommaso Chiara", "Cantù Sgrò Nardò Panè"),
    "pt": ("João Conceição Sebastião Inês Gonçalo Tomé", "Simões Guimarães Magalhães Brandão"),
    "pl": ("Łukasz Małgorzata Wojciech Zofia Jędrzej", "Wróbel Król Dąbrowski Gołębiowski"),
}
"""First names and surnames by language (each name has a diacritic somewhere)."""

_FOLD = str.maketrans({"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "ß": "ss", "æ": "ae", "œ": "oe"})


def fold(text: str) -> str:
    """``text`` without diacritics (``Łukasz Wróbel`` -> ``Lukasz Wrobel``)."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


_IN_LANGUAGE = {
    "de": ("Der Termin beim Notar ist am {d}.", "Unsere Vermieterin heißt {n}."),
    "es": ("La reunión con el colegio es el {d}.", "El fontanero se llama {n}."),
    "fr": ("Le rendez-vous à la mairie est le {d}.", "Notre voisine s'appelle {n}."),
    "it": ("La consegna è prevista per il {d}.", "Il nostro commercialista è {n}."),
    "pt": ("A escritura é no dia {d}.", "A nossa vizinha chama-se {n}."),
}
_IN_ENGLISH = {
    "date": (
        "The letter from the tax office gives {d} as the deadline.",
        "Check-in on the booking confirmation says {d}.",
        "My cousin's wedding invite just says {d}, so that's the day.",
        "The new job starts {d}, according to the contract.",
        "Their email has {d} for the handover of the flat.",
    ),
    "name": (
        "Our new landlady is {n}, she lives on the ground floor.",
        "The kids' Spanish tutor is {n}.",
        "I'm meeting {n} from the relocation agency next week.",
        "{n} is the architect doing the plans for the extension.",
        "Grandma's neighbour, {n}, keeps an eye on her for us.",
    ),
}
_CHATTER = (
    "{fn} sent a voice note from {place}, all in {lang}, couldn't follow half of it.",
    "Had lunch with {fn}, we talked about the trip on {fd}.",
    "{fn} says the festival was on {fd} this year.",
    "Mi madre dice hola. {fn} también.",
    "Alles gut hier, {fn} lässt grüßen.",
)
_LANGUAGE_NAMES = {
    "de": "German",
    "es": "Spanish",
    "fr": "French",
    "it": "Italian",
    "pt": "Portuguese",
}


class _LocaleWriter(Writer):
    def locale_date(self, lang: str) -> tuple[str, tuple[str, ...]]:
        r = self.rng
        months = LOCALE_MONTHS[lang].split()

        def make() -> tuple[str, tuple[str, ...]]:
            year, month, day = r.randint(2026, 2028), r.randint(1, 12), r.randint(2, 28)
            local = {
                "de": f"{day}. {months[month - 1]} {year}",
                "es": f"{day} de {months[month - 1]} de {year}",
                "fr": f"{day} {months[month - 1]} {year}",
                "it": f"{day} {months[month - 1]} {year}",
                "pt": f"{day} de {months[month - 1]} de {year}",
            }[lang]
            aliases = [
                f"{day} {MONTHS[month - 1]} {year}",
                f"{MONTHS[month - 1]} {day}, {year}",
                f"{year}-{month:02d}-{day:02d}",
            ]
            if lang == "de":
                aliases.append(f"{day:02d}.{month:02d}.{year}")
            return local, tuple(aliases)

        return self.fresh(make)

    def locale_name(self, lang: str) -> tuple[str, tuple[str, ...]]:
        r = self.rng
        first, last = (part.split() for part in NAMES[lang])

        def make() -> tuple[str, tuple[str, ...]]:
            name = f"{r.choice(first)} {r.choice(last)}"
            return name, (fold(name),) if fold(name) != name else ()

        return self.fresh(make)

    def chatter(self) -> None:
        r = self.rng
        lang = r.choice(sorted(_IN_LANGUAGE))
        text = r.choice(_CHATTER).replace("{lang}", _LANGUAGE_NAMES[lang])
        text = text.replace("{fn}", self.locale_name(r.choice(sorted(NAMES)))[0])
        text = text.replace("{fd}", self.locale_date(lang)[0])
        self.say("user", self.fill(text))
        self.say("assistant", self.fill(r.choice(("Nice.", "Ha, lovely.", "Noted, {first}."))))


def write(rng: random.Random, turns: int, facts: int) -> Writer:
    """``facts`` names and dates (half each), in English or in the language itself."""
    w = _LocaleWriter(rng)
    plan = dict(zip(spread(rng, turns, facts), range(facts), strict=True))
    kinds = ["name" if i % 2 else "date" for i in range(facts)]
    rng.shuffle(kinds)
    acks = ("Got it.", "Okay, saved.", "Noted, thanks.", "Right, I'll keep that.")
    for t in range(turns):
        w.begin()
        if t not in plan:
            if rng.random() < 0.25:
                w.chatter()
            else:
                w.small_talk()
            continue
        kind = kinds[plan[t]]
        lang = rng.choice(sorted(_IN_LANGUAGE))
        in_language = rng.random() < 0.5
        if kind == "date":
            value, aliases = w.locale_date(lang)
            frame = _IN_LANGUAGE[lang][0] if in_language else rng.choice(_IN_ENGLISH["date"])
            text = frame.replace("{d}", value)
        else:
            who = lang if in_language else rng.choice(sorted(NAMES))
            value, aliases = w.locale_name(who)
            frame = _IN_LANGUAGE[lang][1] if in_language else rng.choice(_IN_ENGLISH["name"])
            text = frame.replace("{n}", value)
        where = w.say("user", text)
        w.say("assistant", rng.choice(acks))
        w.record("name" if kind == "name" else "date", value, aliases, t, where)
    return w
