"""blind4-locale: names, dates, amounts and times written the way other languages write them.

A family spread over Berlin, Lyon, Valencia and Kraków asks an assistant for help with
paperwork, appointments and bills. People's names keep their diacritics (Małgorzata Wójcik,
Íñigo Ibáñez, Hélène Lefèvre, Jürgen Weißmüller), dates are German, French, Spanish or Polish
("3. März 2027", "14 mars 2027", "14 de marzo de 2027", "3 marca 2027") or numeric
("14/03/2027", "14.03.2027"), amounts have the comma decimal ("1.234,50 €", "3 480,00 zł"),
times are 24-hour ("9:40 Uhr", "18h45"). Facts are said in English sentences or in short
sentences of the language; the small talk switches language too and carries values written
the same ways. A summary may give a date in English or ISO form, a name without its
diacritics, an amount the English way, or a time without "Uhr": those are the aliases.
"""

from __future__ import annotations

import random
import unicodedata
from functools import partial

from evals.families.blind4.base import Convo, Slots, build, spread
from evals.families.blind4.chatter import MONTHS, Fresh, filler_turn
from evals.families.trajectories import Trajectory

__all__ = ["NAMES", "generate"]

EN_MONTHS = MONTHS
DE = (
    "Januar",
    "Februar",
    "März",
    "April",
    "Mai",
    "Juni",
    "Juli",
    "August",
    "September",
    "Oktober",
    "November",
    "Dezember",
)
FR = (
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
)
ES = (
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
)
PL = (
    "stycznia",
    "lutego",
    "marca",
    "kwietnia",
    "maja",
    "czerwca",
    "lipca",
    "sierpnia",
    "września",
    "października",
    "listopada",
    "grudnia",
)

NAMES = {
    "de": (
        "Jürgen Weißmüller",
        "Sören Köhler",
        "Anneliese Bäumer",
        "Dörte Großkopf",
        "Björn Jäger",
        "Käthe Müßig",
    ),
    "fr": (
        "Hélène Lefèvre",
        "François Mégret",
        "Noémie Bérénger",
        "Anaïs Côté",
        "Jérôme Daubrée",
        "Loïc Thévenot",
    ),
    "es": (
        "Begoña Ibáñez",
        "Íñigo Muñoz",
        "José Ángel Peña",
        "Ainhoa Ordóñez",
        "Martín Cañete",
        "Nerea Güell",
    ),
    "pl": (
        "Małgorzata Wójcik",
        "Grzegorz Łukaszewicz",
        "Zbigniew Świątek",
        "Jadwiga Żółkowska",
        "Wojciech Dąbrowski",
        "Bożena Kaźmierczak",
    ),
}
FILLER_NAMES = ("Uwe", "Claire", "Pablo", "Kasia", "Heike", "Julien", "Lucía", "Piotr")


def fold(text: str) -> str:
    """``text`` without diacritics (ß as ss, ł as l)."""
    text = text.replace("ß", "ss").replace("ł", "l").replace("Ł", "L")
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _date(rng: random.Random, lang: str) -> tuple[str, tuple[str, ...]]:
    d, m = rng.randint(1, 28), rng.randint(1, 12)
    form = rng.choice(("words", "words", "numeric"))
    if form == "numeric":
        value = f"{d:02d}.{m:02d}.2027" if lang in ("de", "pl") else f"{d:02d}/{m:02d}/2027"
    elif lang == "de":
        value = f"{d}. {DE[m - 1]} 2027"
    elif lang == "fr":
        value = f"{'1er' if d == 1 else d} {FR[m - 1]} 2027"
    elif lang == "es":
        value = f"{d} de {ES[m - 1]} de 2027"
    else:
        value = f"{d} {PL[m - 1]} 2027"
    month = EN_MONTHS[m - 1]
    return value, (f"{d} {month} 2027", f"{month} {d}, 2027", f"2027-{m:02d}-{d:02d}")


def _amount(rng: random.Random, lang: str) -> tuple[str, tuple[str, ...]]:
    whole, cents = rng.randint(120, 4800), rng.choice((0, 50, 90, 95, 20, 75))
    english = f"{whole:,}.{cents:02d}"
    if lang == "pl":
        grouped = f"{whole:,}".replace(",", " ")
        return f"{grouped},{cents:02d} zł", (f"{english} zł", f"{english} PLN", f"PLN {english}")
    grouped = f"{whole:,}".replace(",", "." if lang in ("de", "es") else " ")
    return f"{grouped},{cents:02d} €", (f"€{english}", f"{english} EUR", f"EUR {english}")


def _time(rng: random.Random, lang: str) -> tuple[str, tuple[str, ...]]:
    h, m = rng.randint(8, 19), rng.choice((5, 20, 25, 35, 40, 55))
    if lang == "fr":
        return f"{h}h{m:02d}", (f"{h}:{m:02d}",)
    if lang == "de":
        return f"{h}:{m:02d} Uhr", (f"{h}:{m:02d}",)
    return f"{h}:{m:02d} h", (f"{h}:{m:02d}",)


def _code(rng: random.Random, lang: str) -> tuple[str, tuple[str, ...]]:
    if lang == "es":
        return f"Y{rng.randint(1000000, 9999999)}{rng.choice('TRWAGMYFPDXBNJZSQVHLCKE')}", ()
    if lang == "de":
        return f"AZ {rng.randint(10, 99)}/{rng.randint(1000, 9999)}-K", ()
    if lang == "fr":
        return f"DOS-{rng.randint(2026, 2027)}-{rng.randint(10000, 99999)}", ()
    return f"KR{rng.randint(1, 9)}P/{rng.randint(10000000, 99999999)}/{rng.randint(0, 9)}", ()


# (kind, lang, sentence with {v}); {v} drawn by the kind's function in that language's way.
SENTENCES: tuple[tuple[str, str, str], ...] = (
    (
        "name",
        "de",
        "The Hausverwaltung finally replied, the person handling our heating complaint is {v}. "
        "Can you draft a polite chaser?",
    ),
    (
        "name",
        "de",
        "Bei der Versicherung kümmert sich jetzt {v} um unseren Fall, sehr nett am Telefon.",
    ),
    ("name", "fr", "The notaire in Lyon is Maître {v}, who wants the signed copies by post."),
    ("name", "fr", "Pour la crèche, le contact c'est {v}, qui répond surtout par e-mail."),
    ("name", "es", "The physio Mamá likes in Valencia is {v}, mornings only though."),
    ("name", "es", "Quien vino ayer a mirar la fuga se llama {v}, dejó presupuesto por escrito."),
    ("name", "pl", "Babcia's new GP in Kraków is dr {v}, can you find the clinic's opening hours?"),
    ("name", "pl", "Klucze do mieszkania babci ma teraz {v}, z trzeciego piętra."),
    ("date", "de", "Got the letter from the Bürgeramt, the appointment for the Anmeldung is {v}."),
    ("date", "de", "Der TÜV-Termin ist am {v}, hab's gerade bestätigt bekommen."),
    ("date", "fr", "The école sent the dates, la rentrée for Léa is {v}."),
    ("date", "fr", "Le rendez-vous à la préfecture pour le titre de séjour, c'est le {v}."),
    ("date", "es", "Mamá's operation at La Fe is booked for {v}, we'll need to fly down."),
    ("date", "es", "La cita para renovar el DNI es el {v}, por la mañana."),
    ("date", "pl", "Babcia's name day party is {v}, everyone's expected."),
    ("date", "pl", "Przegląd techniczny auta mamy na {v}."),
    ("value", "de", "The Nebenkostenabrechnung came in, we owe {v} for last year. Ouch."),
    ("value", "fr", "Le devis du plombier est à {v}, TVA comprise."),
    ("value", "es", "The deposit for the flat in Ruzafa is {v}, they want it by transfer."),
    ("value", "pl", "Rachunek za remont łazienki u babci wyszedł {v}."),
    ("value", "de", "Kita pickup on Thursdays is at {v} sharp, otherwise they charge."),
    (
        "value",
        "fr",
        "The TGV back from Paris gets into Part-Dieu at {v}, can you check the connection?",
    ),
    ("value", "es", "La reunión con el gestor es a las {v}, en su oficina."),
    (
        "code",
        "es",
        "My NIE came through at last, it's {v}. Can you fill it into the form for the bank?",
    ),
    (
        "code",
        "de",
        "The Finanzamt letter has the Aktenzeichen {v} on it, we need it for the appeal.",
    ),
    ("code", "fr", "La CAF m'a donné un numéro de dossier: {v}."),
    ("code", "pl", "The land registry number for Babcia's flat is {v}, the notary asked for it."),
)

REPLIES = {
    "de": ("Alles klar, danke.", "Verstanden, ich kümmere mich darum.", "Got it, thanks."),
    "fr": ("D'accord, c'est noté.", "Parfait, merci.", "Got it."),
    "es": ("Vale, perfecto.", "Entendido, gracias.", "Okay, thanks."),
    "pl": ("Dobrze, dziękuję.", "Jasne, zrozumiałem.", "Okay, got it."),
}


def _value(rng: random.Random, kind: str, lang: str, text: str) -> tuple[str, tuple[str, ...]]:
    if kind == "name":
        v = rng.choice(NAMES[lang])
        return v, (fold(v),)
    if kind == "date":
        return _date(rng, lang)
    if kind == "code":
        return _code(rng, lang)
    if " at {v}" in text or "a las {v}" in text:
        return _time(rng, lang)
    return _amount(rng, lang)


def _episode(convo: Convo, kind: str, lang: str, text: str, used: set[str]) -> None:
    while True:
        value, aliases = _value(convo.rng, kind, lang, text)
        if value not in used:
            break
    used.add(value)
    index = convo.user(text.format(v=value))
    convo.plant(kind, value, index, aliases=aliases)
    convo.say(convo.rng.choice(REPLIES[lang]))


def _local_chatter(convo: Convo, f: Fresh) -> None:
    rng = convo.rng
    who = rng.choice(FILLER_NAMES)
    d, mon = rng.randint(1, 28), rng.randrange(12)
    small = f"{rng.randint(2, 89)},{rng.choice(('10', '30', '45', '60', '80', '99'))} €"
    pairs = (
        (
            f"Heute {rng.randint(4, 31)} Grad in Berlin, und {who} will grillen. Typisch.",
            "Klingt gut, viel Spaß beim Grillen!",
        ),
        (
            f"Le marché était cher ce matin, {small} pour trois fromages.",
            "Les fromages, ça vaut le coup quand même.",
        ),
        (
            f"{who} dice que el {d} de {ES[mon]} hay huelga de metro otra vez.",
            "Vaya, toca buscar alternativa ese día.",
        ),
        (
            f"Pociąg do Krakowa spóźnił się {rng.randint(5, 50)} minut, klasyka.",
            "Niestety, to się zdarza. Dobrze, że dojechałeś.",
        ),
        (
            f"Der Kassenbon sagt {small}, ich dachte, es wäre weniger.",
            "Prices have crept up everywhere, sadly.",
        ),
        (
            f"Is the Feiertag on {d}. {DE[mon]} nationwide or just Bavaria?",
            "Some German holidays are regional; check the Land's list to be sure.",
        ),
        (
            f"{who} from upstairs asked if the {d} {FR[mon]} works for the apéro.",
            "Sounds lovely, worth checking the calendar.",
        ),
        (
            f"Mamá quiere que lleve {rng.randint(2, 5)} kilos de naranjas a Madrid, ¿cabe en la "
            "maleta?",
            "Si facturas, sí; en cabina quizá pese demasiado.",
        ),
    )
    user, reply = rng.choice(pairs)
    convo.user(user)
    convo.say(reply)


def write(convo: Convo, turns: int, facts: int) -> None:
    f = Fresh(convo.rng)
    convo.system(
        "You are Ilse, a multilingual family assistant for a family spread over Berlin, Lyon, "
        "Valencia and Kraków. Answer in the language you are written to; help with paperwork, "
        "appointments and bills."
    )
    slots = Slots(turns)
    order = list(SENTENCES)
    convo.rng.shuffle(order)
    used: set[str] = set()
    for i, at in enumerate(spread(convo.rng, facts, turns)):
        kind, lang, text = order[i % len(order)]
        slots.put(at, partial(_episode, convo, kind, lang, text, used))
    slots.run(
        lambda: _local_chatter(convo, f) if convo.rng.random() < 0.35 else filler_turn(convo, f)
    )


def generate(seed: int, *, turns: int = 840, facts: int = 20) -> Trajectory:
    """The ``blind4-locale`` conversation for ``seed``."""
    return build(
        "b4-locale", seed, lambda c: write(c, turns, facts), {"turns": turns, "facts": facts}
    )
