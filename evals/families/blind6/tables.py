"""``blind6-tables``: a look-up returns a table; later the user picks a row by a cell or by how.

Quotes from tilers, guesthouses for a trip, seed varieties, a lab's samples, van hire, trains,
flour mills: 3-8 rows as markdown, CSV, TSV, aligned columns, JSON records or a YAML list. Later
(the next turn, or dozens of turns on) the user points at a row by its key cell ("the Ghent
one") or by description ("the cheapest", "the second one", "the quickest"); sometimes at two rows
of one table in different messages. The fact is another cell of that row (a reference, a host,
a catalogue number, a freezer box, a phone number, a contact), only in the tool result. Some
tables nobody refers to.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evals.families.blind6.base import TOWNS, Writer, build, dumps, timeline
from evals.families.facts import FactKind
from evals.families.trajectories import Trajectory

__all__ = ["KINDS", "TableSpec", "generate", "render", "table_episode"]

SYSTEM = (
    "You are a practical assistant for someone juggling a small bakery, a house renovation, "
    "an allotment, a family trip and a part-time research project. You can search, compare "
    "quotes and look things up with tools."
)

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


@dataclass(frozen=True)
class TableSpec:
    """One kind of table: its columns, how a row is drawn, and how people talk about it."""

    tool: str
    args: dict[str, Any]
    ask: tuple[str, ...]  # the user's request that leads to the look-up
    thing: str  # what the rows are, in the user's words ("those tile quotes")
    columns: tuple[str, ...]
    label: str  # the key column a user may name a row by
    named: str  # how a row is named by its label: "the {x} one", "the one in {x}"
    sort: str  # a numeric column, for superlatives
    low: str  # the row with the smallest ``sort`` ("cheapest")
    high: str  # the row with the largest ``sort`` ("priciest")
    fact: str  # the column holding the fact
    kind: FactKind
    row: Callable[[Writer], dict[str, str]]


_MILLS = (
    "Brook Mill",
    "Old Weir Mills",
    "Hopcroft Flour",
    "Foxley Milling",
    "Ashby Grain",
    "Wetherby Stoneground",
    "Kettle Mill",
    "Harrow Lane Flour",
)
_HOUSES = (
    "Harbour View",
    "The Old Forge",
    "Gull Cottage",
    "Bramble House",
    "The Anchorage",
    "Rook Lodge",
    "Lantern House",
    "Ferry Steps",
)
_VARIETIES = (
    "Sungold",
    "Black Krim",
    "Tigerella",
    "Costoluto",
    "Moneymaker",
    "Ailsa Craig",
    "Green Zebra",
    "Brandywine",
)
_VANS = (
    "Swift Vans",
    "Dales Hire",
    "Cargo Kings",
    "Budget Wheels",
    "Hillside Hire",
    "Roadrunner Vans",
    "Parkway Rentals",
    "Lakeside Vans",
)
_SUPPLIERS = (
    "Tile Depot",
    "Mosaic Warehouse",
    "Ceramica Direct",
    "The Tile Barn",
    "Porcelain Plus",
    "Floor & Wall Co",
    "Stone & Slate",
    "Tileworks",
)


def _pick(w: Writer, pool: tuple[str, ...]) -> str:
    """A cell not yet taken in this table (labels may repeat across tables)."""
    value = w.rng.choice([x for x in pool if x not in w.labels])
    w.labels.add(value)
    return value


def _num(w: Writer, lo: int, hi: int, scale: int = 1) -> str:
    values = [str(n) if scale == 1 else f"{n / scale:.1f}" for n in range(lo, hi + 1)]
    return _pick(w, tuple(values))


def _price(w: Writer, lo: int, hi: int) -> str:
    return _pick(w, tuple(f"£{n}" for n in range(lo, hi + 1)))


_TOWNS = TOWNS
_DEPARTS = tuple(f"{h}:{m:02d}" for h in range(8, 20) for m in (2, 17, 33, 48))


KINDS: dict[str, TableSpec] = {
    "tiles": TableSpec(
        "compare_quotes",
        {"job": "bathroom tiles", "area_m2": 14},
        (
            "can u get me a few quotes for the bathroom tiles, the matt grey ones we looked at",
            "compare tile suppliers for the bathroom please, same tile, I just want the cheapest "
            "sensible option",
        ),
        "tile quotes",
        ("supplier", "town", "price_per_m2", "quote_ref"),
        "town",
        "one in {x}",
        "price_per_m2",
        "cheapest",
        "priciest",
        "quote_ref",
        "code",
        lambda w: {
            "supplier": _pick(w, _SUPPLIERS),
            "town": _pick(w, _TOWNS),
            "price_per_m2": _price(w, 18, 95),
            "quote_ref": w.code("TQ-99999"),
        },
    ),
    "guesthouses": TableSpec(
        "search_stays",
        {"area": "coast", "guests": 4, "nights": 3},
        (
            "find us somewhere to stay on the coast for the half term trip, two adults two kids",
            "can you look up guesthouses for the trip, family room, nothing too posh",
        ),
        "guesthouses",
        ("guesthouse", "town", "per_night", "host"),
        "guesthouse",
        "{x} one",
        "per_night",
        "cheapest",
        "dearest",
        "host",
        "name",
        lambda w: {
            "guesthouse": _pick(w, _HOUSES),
            "town": _pick(w, _TOWNS),
            "per_night": _price(w, 70, 240),
            "host": w.person(),
        },
    ),
    "seeds": TableSpec(
        "search_catalogue",
        {"category": "tomato seed"},
        (
            "what tomato varieties does the seed catalogue have this year? want something for "
            "the greenhouse",
            "pull up the tomato seeds from that catalogue, i need to order before they sell out",
        ),
        "tomato varieties",
        ("variety", "days_to_harvest", "catalogue_no"),
        "variety",
        "{x}",
        "days_to_harvest",
        "quickest",
        "slowest",
        "catalogue_no",
        "code",
        lambda w: {
            "variety": _pick(w, _VARIETIES),
            "days_to_harvest": _num(w, 52, 95),
            "catalogue_no": w.code("T-9999A"),
        },
    ),
    "samples": TableSpec(
        "query_samples",
        {"project": "soil survey", "status": "stored"},
        (
            "can you list the soil samples we've got stored, i need to pick which to rerun",
            "which of the survey samples are still in the freezer? pull the list",
        ),
        "soil samples",
        ("site", "ph", "freezer_box"),
        "site",
        "{x} sample",
        "ph",
        "most acidic",
        "least acidic",
        "freezer_box",
        "code",
        lambda w: {
            "site": _pick(w, _TOWNS),
            "ph": _num(w, 41, 79, 10),
            "freezer_box": w.code("FB-99-A"),
        },
    ),
    "vans": TableSpec(
        "compare_hire",
        {"vehicle": "small van", "days": 1},
        (
            "need a van for the fair to carry the tables and the cake stands, can you compare "
            "local hire places",
            "van hire options please, just for the day of the fair",
        ),
        "van hire places",
        ("company", "day_rate", "phone"),
        "company",
        "{x} one",
        "day_rate",
        "cheapest",
        "most expensive",
        "phone",
        "code",
        lambda w: {
            "company": _pick(w, _VANS),
            "day_rate": _price(w, 45, 160),
            "phone": w.code("07999 999999"),
        },
    ),
    "trains": TableSpec(
        "search_trains",
        {"to": "the coast", "passengers": 4},
        (
            "can you check trains for the way back from the trip, in case the car plan falls "
            "through",
            "look up trains home for us please, just the options",
        ),
        "trains",
        ("departs", "changes", "fare", "booking_ref"),
        "departs",
        "{x} one",
        "departs",
        "earliest",
        "last",
        "booking_ref",
        "code",
        lambda w: {
            "departs": _pick(w, _DEPARTS),
            "changes": w.rng.choice(("none", "one", "two")),
            "fare": _price(w, 35, 190),
            "booking_ref": w.code("AAA9AA"),
        },
    ),
    "mills": TableSpec(
        "compare_suppliers",
        {"product": "organic strong white flour", "unit": "sack"},
        (
            "the flour's gone up again, can you compare a few mills for the strong white",
            "find me other flour suppliers, the current lot keep being late",
        ),
        "flour mills",
        ("mill", "town", "per_sack", "contact"),
        "town",
        "one in {x}",
        "per_sack",
        "cheapest",
        "priciest",
        "contact",
        "name",
        lambda w: {
            "mill": _pick(w, _MILLS),
            "town": _pick(w, _TOWNS),
            "per_sack": _price(w, 19, 48),
            "contact": w.person(),
        },
    ),
}


def render(fmt: str, columns: tuple[str, ...], rows: list[dict[str, str]]) -> str:
    """``rows`` as a tool prints them: markdown, csv, tsv, aligned, json or yaml."""
    cells = [[r[c] for c in columns] for r in rows]
    if fmt == "markdown":
        lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        return "\n".join(lines + ["| " + " | ".join(c) + " |" for c in cells])
    if fmt == "csv":
        return "\n".join(",".join(c) for c in [list(columns), *cells])
    if fmt == "tsv":
        return "\n".join("\t".join(c) for c in [list(columns), *cells])
    if fmt == "aligned":
        widths = [max(len(x) for x in col) for col in zip(columns, *cells, strict=False)]
        grid = [list(columns), *cells]
        return "\n".join(
            "  ".join(x.ljust(n) for x, n in zip(r, widths, strict=True)).rstrip() for r in grid
        )
    if fmt == "json":
        return dumps([{c: r[c] for c in columns} for r in rows])
    out: list[str] = []
    for r in rows:
        out.extend(f"{'- ' if i == 0 else '  '}{c}: {r[c]}" for i, c in enumerate(columns))
    return "\n".join(out)


FORMATS = ("markdown", "csv", "tsv", "aligned", "json", "yaml")

_POINT = (
    "ok the {ref} looks best, lets go with that. can you hang on to the details",
    "going back to those {thing} - the {ref}. that's the one",
    "rang round about the {thing} and honestly the {ref} sounded the most sensible",
    "leaning towards the {ref} tbh",
    "the {ref} please, if it's still there",
    "so i talked it over at home and we're going for the {ref} from that list you found",
    "think ill book the {ref}, the others didnt grab me",
    "remember those {thing} from before? we've settled on the {ref}",
    "sorry been ages, but the {thing} — can we go with the {ref}",
    "{ref}. decided. dont let me change my mind",
)
_SECOND = (
    "oh and for my sister's lot, the {ref} from those {thing} would suit them",
    "actually can we also keep the {ref} as a backup, from the {thing}",
    "my neighbour wants one too, she's going for the {ref}",
    "and the {ref} as well please, for the second job",
)
_ACK = (
    "Lovely, I'll keep that one in mind for you.",
    "Good choice, noted.",
    "Okay, that's the one then.",
    "Sounds sensible, I've made a note of it.",
    "Great, that's settled.",
)


def _describe(w: Writer, spec: TableSpec, rows: list[dict[str, str]], i: int, how: str) -> str:
    if how == "label":
        return spec.named.replace("{x}", rows[i][spec.label])
    if how == "low":
        return spec.low if spec.low.endswith("one") else f"{spec.low} one"
    if how == "high":
        return spec.high if spec.high.endswith("one") else f"{spec.high} one"
    return "last one" if i == len(rows) - 1 and w.rng.random() < 0.5 else f"{ORDINALS[i]} one"


def _key(value: str) -> float:
    digits = "".join(c for c in value if c.isdigit() or c == ".")
    return float(digits.replace(":", "") or 0)


def table_episode(
    w: Writer, name: str, picks: int, gaps: list[int], at: int
) -> list[tuple[int, Callable[[], None]]]:
    """Events: the look-up at turn ``at``, and ``picks`` references ``gaps`` turns after it."""
    spec = KINDS[name]
    r = w.rng
    state: dict[str, Any] = {}

    def lookup() -> None:
        w.labels = set()
        rows = [spec.row(w) for _ in range(r.randint(max(3, picks + 1), 8))]
        state["rows"] = rows
        w.user(r.choice(spec.ask))
        state["index"] = w.tool(
            spec.tool,
            spec.args,
            render(r.choice(FORMATS), spec.columns, rows),
            lead=r.choice((None, "I'll check.", "Let me pull those up.")),
        )
        w.say(
            "assistant",
            r.choice(
                (
                    f"Here are the {spec.thing} I found. Have a look and tell me which suits.",
                    f"That's what came back for the {spec.thing}. Any of them stand out?",
                    "Those are the options. Happy to dig into any of them.",
                )
            ),
        )
        state["taken"] = []

    def point(k: int) -> Callable[[], None]:
        def event() -> None:
            rows = state["rows"]
            values = sorted(range(len(rows)), key=lambda i: _key(rows[i][spec.sort]))
            choices = {"low": values[0], "high": values[-1]}
            how = r.choice(("label", "label", "position", "low", "high"))
            i = choices.get(how, r.randrange(len(rows)))
            while i in state["taken"]:
                how, i = "position", r.randrange(len(rows))
            state["taken"].append(i)
            ref = _describe(w, spec, rows, i, how)
            text = r.choice(_POINT if k == 0 else _SECOND)
            w.user(text.replace("{ref}", ref).replace("{thing}", spec.thing))
            w.plant(spec.kind, rows[i][spec.fact], state["index"])
            w.say("assistant", r.choice(_ACK))

        return event

    events = [(at, lookup)]
    turn = at + 1
    for k in range(picks):
        turn += gaps[k]
        events.append((turn, point(k)))
        turn += 1
    return events


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    names = list(KINDS)
    plan: list[tuple[str, int]] = []
    total = 0
    while total < facts:
        picks = min(facts - total, r.choices((1, 2), weights=(3, 1))[0])
        plan.append((r.choice(names), picks))
        total += picks
    plan += [(r.choice(names), 0) for _ in range(max(1, len(plan) // 4))]  # nobody refers
    r.shuffle(plan)
    slot = max(4, (turns - 40) // len(plan))
    events = []
    for n, (name, picks) in enumerate(plan):
        gaps = [r.choice((0, 0, 1, 3, 6, 12, 25, 40)) for _ in range(picks)]
        events += table_episode(w, name, picks, gaps, n * slot + r.randint(0, slot // 2))
    timeline(w, turns, events)


def generate(seed: int, *, turns: int = 430, facts: int = 20) -> Trajectory:
    """One ``blind6-tables`` conversation for ``seed``."""
    return build(seed, "b6-tables", turns, facts, _write, SYSTEM)
