"""``blind8-intl``: a deli's Italian, Portuguese and Dutch suppliers, in their own words.

The owner of a small deli imports from producers in Italy, Portugal and the Netherlands and
pastes what they write: contacts' names with their own letters (``Niccolò D'Ambrosio``,
``Conceição Magalhães``, ``Sjoerd van der Meulen``), addresses (``Via Emilia Est 214, 43123
Parma``, ``Rua de Cedofeita 418, 4050-174 Porto``, ``Oudegracht 157, 3511 AP Utrecht``),
delivery dates (``3 marzo``, ``12 de maio``, ``5 juni``) and totals with a decimal comma
(``1.247,50 €``, ``1 247,50 €``, ``€ 1.247,50``). About a third are corrected later: a date
moved, a total revised, a contact replaced, a warehouse moved, by the user quoting the
supplier or by an inbox look-up. Aliases are the English forms (``3 March``, ``€1,247.50``)
and names without their accents.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from evals.families.blind6.base import dumps, timeline
from evals.families.blind8.base import Writer, build
from evals.families.facts import FactKind
from evals.families.trajectories import Trajectory

__all__ = ["FIRMS", "generate", "plain"]

MONTHS = {
    "it": ("gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto",
           "settembre", "ottobre", "novembre", "dicembre"),
    "pt": ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto",
           "setembro", "outubro", "novembro", "dezembro"),
    "nl": ("januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus",
           "september", "oktober", "november", "december"),
}  # fmt: skip
ENGLISH = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
NAMES = {
    "it": (("Niccolò", "Chiara", "Lorenzo", "Federica", "Gianluca", "Ilaria", "Ludovica"),
           ("D'Ambrosio", "Ferraresi", "Lo Bianco", "Cattaneo", "Bortolotti", "Santoro")),
    "pt": (("Conceição", "Gonçalo", "Inês", "Sebastião", "João Pedro", "Leonor"),
           ("Magalhães", "Gonçalves", "Simões", "Araújo", "Brandão", "Albuquerque")),
    "nl": (("Sjoerd", "Femke", "Joost", "Marieke", "Bram", "Anouk"),
           ("van der Meulen", "de Vries", "Bakker", "van den Broek", "Hoekstra", "Verbeek")),
}  # fmt: skip
STREETS = {
    "it": (("Via Emilia Est", "Parma", "431"), ("Via dei Mille", "Modena", "411"),
           ("Corso Garibaldi", "Reggio Emilia", "421"), ("Via Roma", "Norcia", "060"),
           ("Viale Mazzini", "Siena", "531")),
    "pt": (("Rua de Cedofeita", "Porto", "4050"), ("Rua Direita", "Viseu", "3500"),
           ("Avenida da Liberdade", "Lisboa", "1250"), ("Rua do Comércio", "Évora", "7000"),
           ("Travessa do Carmo", "Peso da Régua", "5050")),
    "nl": (("Oudegracht", "Utrecht", "3511"), ("Lange Tiendeweg", "Gouda", "2801"),
           ("Kerkstraat", "Edam", "1135"), ("Voorstraat", "Dordrecht", "3311"),
           ("Breestraat", "Leiden", "2311")),
}  # fmt: skip


@dataclass(frozen=True)
class Firm:
    """A supplier: how the deli owner calls it and its language."""

    label: str
    lang: str


FIRMS = (
    Firm("the parmesan dairy", "it"),
    Firm("the balsamic people", "it"),
    Firm("the truffle lot", "it"),
    Firm("the olive oil estate", "pt"),
    Firm("the sardine cannery", "pt"),
    Firm("the port lodge", "pt"),
    Firm("the cheese farm near Gouda", "nl"),
    Firm("the stroopwafel bakery", "nl"),
    Firm("the liquorice makers", "nl"),
)
"""The suppliers."""

_SAID = {
    # (language, attribute) -> what the supplier wrote, the value as {v}
    ("it", "date"): ("la consegna è prevista per il {v}", "spediamo il {v}, salvo imprevisti"),
    ("pt", "date"): ("a entrega fica marcada para {v}", "a encomenda segue a {v}"),
    ("nl", "date"): ("levering op {v}", "wij verzenden uw bestelling op {v}"),
    ("it", "price"): ("il totale dell'ordine è di {v}", "importo da saldare: {v}"),
    ("pt", "price"): ("o valor total é de {v}", "total a pagar: {v}"),
    ("nl", "price"): ("het totaalbedrag is {v}", "te betalen: {v}"),
    ("it", "name"): ("il vostro referente sarà {v}", "per gli ordini scrivete a {v}"),
    ("pt", "name"): ("a partir de agora fale com {v}", "a sua pessoa de contacto é {v}"),
    ("nl", "name"): ("uw contactpersoon is {v}", "vragen kunt u stellen aan {v}"),
    ("it", "address"): ("il nostro magazzino è in {v}", "ritiro merce presso {v}"),
    ("pt", "address"): ("a nossa morada é {v}", "recolha em {v}"),
    ("nl", "address"): ("ons magazijn zit aan de {v}", "ophalen kan op {v}"),
}
_ASKS = {
    "date": ("can you put that in the calendar", "add that to the deliveries list",
             "make a note of when that lands"),
    "price": ("add that to the payments list", "can you put that in the accounts sheet",
              "log that against the order"),
    "name": ("update the contact for them", "put that in the supplier list",
             "that's who to email from now on"),
    "address": ("update their address please", "put that on the supplier card",
                "that's where the courier should go"),
}  # fmt: skip
_FIXES = (
    '{label} have written again: "{said}". so that changes what i told you before',
    'change of plan from {label}, they say "{said}"',
    'ugh, {label} again: "{said}". update it please',
)
_SUBJECT = {"it": "aggiornamento ordine", "pt": "atualização da encomenda", "nl": "wijziging"}
KIND: dict[str, FactKind] = {"date": "date", "price": "value", "name": "name", "address": "value"}


def plain(text: str) -> str:
    """``text`` without its accents (``Conceição`` -> ``Conceicao``)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _date(w: Writer, lang: str) -> tuple[str, tuple[str, ...]]:
    r = w.rng
    month = r.randrange(12)
    day = w.fresh(lambda: f"{r.randint(2, 28)}/{month}")
    d = day.split("/")[0]
    word = MONTHS[lang][month]
    value = f"{d} de {word}" if lang == "pt" else f"{d} {word}"
    return value, (f"{d} {ENGLISH[month]}", f"{ENGLISH[month]} {d}")


def _price(w: Writer, lang: str) -> tuple[str, tuple[str, ...]]:
    r = w.rng
    cents = w.fresh(lambda: str(r.randint(31_000, 689_000) // 5 * 5))
    units, rest = int(cents) // 100, int(cents) % 100
    thousands = f"{units:,}"
    if lang == "it":
        value = f"{thousands.replace(',', '.')},{rest:02d} €"
    elif lang == "pt":
        value = f"{thousands.replace(',', ' ')},{rest:02d} €"
    else:
        value = f"€ {thousands.replace(',', '.')},{rest:02d}"
    english = f"{thousands}.{rest:02d}"
    return value, (f"€{english}", f"{english} euros", f"EUR {english}")


def _name(w: Writer, lang: str) -> tuple[str, tuple[str, ...]]:
    r = w.rng
    first, last = NAMES[lang]
    value = w.fresh(lambda: f"{r.choice(first)} {r.choice(last)}")
    return value, ((plain(value),) if plain(value) != value else ())


def _address(w: Writer, lang: str) -> tuple[str, tuple[str, ...]]:
    r = w.rng

    def make() -> str:
        street, town, code = r.choice(STREETS[lang])
        number = r.randint(3, 240)
        if lang == "it":
            return f"{street} {number}, {code}{r.randint(21, 99)} {town}"
        if lang == "pt":
            return f"{street} {number}, {code}-{r.randint(101, 899)} {town}"
        letters = "".join(r.choice("BCDGHKLMNPRSTVWXZ") for _ in range(2))
        return f"{street} {number}, {code} {letters} {town}"

    return w.fresh(make), ()


MAKE: dict[str, Callable[[Writer, str], tuple[str, tuple[str, ...]]]] = {
    "date": _date,
    "price": _price,
    "name": _name,
    "address": _address,
}


def _state(w: Writer, firm: Firm, attr: str, slots: dict[tuple[str, str], int]) -> None:
    r = w.rng
    value, aliases = MAKE[attr](w, firm.lang)
    said = r.choice(_SAID[(firm.lang, attr)]).replace("{v}", value)
    text = r.choice(
        (
            f'email from {firm.label}: "{said}". {r.choice(_ASKS[attr])}',
            f'{firm.label} replied, "{said}" - {r.choice(_ASKS[attr])}',
            f"got this from {firm.label} this morning: {said}. {r.choice(_ASKS[attr])}",
        )
    )
    at = w.user(text)
    w.say("assistant", w.short())
    slots[(firm.label, attr)] = len(w.facts)
    w.plant(KIND[attr], value, at, aliases=aliases)


def _fix(w: Writer, firm: Firm, attr: str, slots: dict[tuple[str, str], int]) -> None:
    r = w.rng
    prior = w.facts[slots[(firm.label, attr)]]
    value, aliases = MAKE[attr](w, firm.lang)
    said = r.choice(_SAID[(firm.lang, attr)]).replace("{v}", value)
    if r.random() < 0.3:
        w.user(f"anything new in the inbox from {firm.label}?")
        at = w.tool(
            "read_inbox",
            {"from": firm.label, "newest": True},
            dumps({"from": firm.label, "subject": _SUBJECT[firm.lang], "body": said}),
            lead=r.choice((None, "Checking.")),
        )
        w.say("assistant", "That's their newest message; I've updated the record.")
    else:
        at = w.user(r.choice(_FIXES).replace("{label}", firm.label).replace("{said}", said))
        w.say("assistant", w.short())
    w.supersede(prior, at)
    w.plant(
        "correction",
        value,
        at,
        aliases=aliases,
        stale=prior.value,
        stale_index=prior.message_index,
    )


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    fixes = round(facts * 0.3)
    base = facts - fixes
    slots = [(f, a) for f in FIRMS for a in MAKE]
    chosen = r.sample(slots, base)
    while base >= len(MAKE) and {a for _, a in chosen} != set(MAKE):  # every kind of detail
        chosen = r.sample(slots, base)
    fixed = r.sample(chosen, fixes)
    states: dict[tuple[str, str], int] = {}
    events: list[tuple[int, Callable[[], None]]] = []
    at_turn = sorted(r.sample(range(2, int(turns * 0.7)), base))
    when: dict[tuple[str, str], int] = {}
    for turn, (firm, attr) in zip(at_turn, chosen, strict=True):
        when[(firm.label, attr)] = turn
        events.append((turn, partial(_state, w, firm, attr, states)))
    for firm, attr in fixed:
        turn = r.randint(when[(firm.label, attr)] + 15, turns - 5)
        events.append((turn, partial(_fix, w, firm, attr, states)))
    timeline(w, turns, events)


def generate(seed: int, *, turns: int = 430, facts: int = 20) -> Trajectory:
    """One ``blind8-intl`` conversation."""
    return build(
        seed,
        "b8-intl",
        turns,
        facts,
        _write,
        "You are an assistant for the owner of a small deli that imports from Italy, Portugal "
        "and the Netherlands.",
        "deli",
    )
