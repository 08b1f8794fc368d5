"""``blind7-tables``: look-ups returning tables in the formats people meet; a row picked later.

Someone who runs a community choir and a junior football club looks up venues, coaches,
kit suppliers, sheet music, pitches, hostels and referees. A result comes back as a markdown
table, a CSV with quoted fields holding commas, columns aligned with spaces and units in the
cells ("54 seats"), JSON with nested records, an HTML ``<table>`` or one ``key: value`` block
per record. Some turns later the user picks a row by its key cell ("the Corn Exchange one")
or by a description ("the cheapest", "the one with the most seats", "the second one"); the
fact is another cell of that row (a reference, a phone number, a contact). Some tables are
never picked; a few get a second pick as a backup.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass

from evals.families.blind6.base import dumps, timeline
from evals.families.blind7.base import Writer, build
from evals.families.trajectories import Trajectory

__all__ = ["FORMATS", "KINDS", "generate"]

SYSTEM = "You help the organiser of a community choir and a junior football club."

Row = dict[str, str]


@dataclass(frozen=True)
class Kind:
    """A sort of table: its look-up, key column, other columns and the column the fact is."""

    tool: str
    ask: str
    keys: tuple[str, ...]
    key: str
    make: Callable[[Writer], dict[str, tuple[str, float]]]  # column -> (cell, number to rank)
    fact: str  # the column whose cell is planted
    most: str  # a column where the largest and smallest mean something ("capacity")
    noun: str  # what the rows are, for a pick ("venue")
    sizes: tuple[str, str]  # a pick of the row largest in ``most``, and of the smallest


def _venue(w: Writer) -> dict[str, tuple[str, float]]:
    r = w.rng
    seats, price = r.randint(6, 40) * 10, r.randint(9, 60) * 10
    return {
        "capacity": (f"{seats} seats", seats),
        "evening rate": (f"£{price}", price),
        "contact": (w.rng.choice(CONTACTS), 0),
        "phone": (_phone(w), 0),
    }


def _coach(w: Writer) -> dict[str, tuple[str, float]]:
    r = w.rng
    seats, price = r.choice((16, 24, 33, 49, 53, 57, 70)), r.randint(28, 95) * 10
    return {
        "seats": (f"{seats} seats", seats),
        "price": (f"£{price}", price),
        "pickup": (r.choice(("club car park", "the leisure centre", "outside the school")), 0),
        "quote ref": (w.code("AA-9999"), 0),
    }


def _kit(w: Writer) -> dict[str, tuple[str, float]]:
    r = w.rng
    price, days = r.randint(18, 46), r.randint(5, 40)
    return {
        "per set": (f"£{price}", price),
        "lead time": (f"{days} days", days),
        "min order": (f"{r.randint(8, 25)} sets", 0),
        "order code": (w.code("AAA-999"), 0),
    }


def _music(w: Writer) -> dict[str, tuple[str, float]]:
    r = w.rng
    pence, stock = r.randint(140, 690), r.randint(3, 90)
    return {
        "publisher": (r.choice(("Novello", "Oxford", "Peters", "Bärenreiter", "Faber")), 0),
        "per copy": (f"£{pence // 100}.{pence % 100:02d}", pence),
        "in stock": (f"{stock} copies", stock),
        "catalogue no": (w.code("AA9999"), 0),
    }


def _pitch(w: Writer) -> dict[str, tuple[str, float]]:
    r = w.rng
    cost, miles = r.randint(25, 95), r.randint(1, 19) + r.choice((0.0, 0.5))
    return {
        "surface": (r.choice(("3G", "grass", "sand astro", "4G")), 0),
        "per hour": (f"£{cost}", cost),
        "distance": (f"{miles:g} mi", miles),
        "bookings": (_phone(w), 0),
    }


def _hostel(w: Writer) -> dict[str, tuple[str, float]]:
    r = w.rng
    beds, price = r.randint(12, 80), r.randint(19, 48)
    return {
        "town": (r.choice(("Keswick", "Ambleside", "Hexham", "Alnwick", "Kendal", "Settle")), 0),
        "beds": (f"{beds} beds", beds),
        "per person": (f"£{price}", price),
        "booking ref": (w.code("AAAA99"), 0),
    }


def _referee(w: Writer) -> dict[str, tuple[str, float]]:
    r = w.rng
    miles, fee = r.randint(2, 28), r.randint(25, 60)
    return {
        "level": (r.choice(("Level 5", "Level 6", "Level 7", "Youth")), 0),
        "distance": (f"{miles} mi", miles),
        "match fee": (f"£{fee}", fee),
        "mobile": (_phone(w), 0),
    }


def _phone(w: Writer) -> str:
    r = w.rng
    return w.fresh(lambda: f"07{r.randint(100, 999)} {r.randint(100000, 999999)}")


CONTACTS = (
    "Hilary Oduya", "Martin Greaves", "Sian Pritchard", "Colin Ashdown", "Pauline Kerr",
    "Neville Osei", "Rhona Baird", "Trevor Lomax", "Mei Lin Cho", "Bernadette Quigley",
)  # fmt: skip
KINDS = {
    "venues": Kind(
        "search_venues", "can you find halls we could hire for the summer concert",
        ("St Aidan's Hall", "the Corn Exchange", "Millbrook Community Centre", "Holy Trinity",
         "the Guildhall", "Elm Street Methodist", "the Assembly Rooms", "Hawthorn Arts Centre",
         "Riverside Pavilion", "the Quaker Meeting House", "St Luke's Church Hall",
         "the Old Library", "Westgate Chapel", "the Mechanics Institute", "Fairfield Hall",
         "the Drill Hall", "Bankside Studios", "All Saints", "the Victoria Rooms"),
        "venue", _venue, "phone", "capacity", "venue",
        ("the biggest hall", "the smallest one")),
    "coaches": Kind(
        "coach_quotes", "get me coach quotes for the away tournament",
        ("Baxter's Coaches", "Greenline Travel", "Moorside Minibus", "Kestrel Tours",
         "Valley Coachways", "Redwing Travel", "Abbey Coaches", "Pennine Hopper", "Dunmore Travel",
         "Castleway", "Swift Line", "Hebden Coaches", "Roseland Coaches", "Amber Travel",
         "Wolds Minibus Hire", "Lakeland Executive", "Ferris Coaches"),
        "operator", _coach, "quote ref", "seats", "coach firm",
        ("the biggest coach", "the smallest one, we're not many")),
    "kit": Kind(
        "kit_suppliers", "who could do the new home kit for the under-elevens",
        ("Sportline", "Kitbag Direct", "Touchline Teamwear", "Pennant Sports",
         "Northern Kit Co", "Goalmouth Supplies", "Crossbar Clothing", "Matchday Wear",
         "Halfway Line Kits", "Stripe and Stud", "Bootroom Teamwear", "Clubhouse Kits",
         "Sixyard Sports", "Elite Teamwear", "Dugout Direct", "Fieldcraft Kit"),
        "supplier", _kit, "order code", "lead time", "supplier",
        ("the slow one, we're not in a rush", "whoever's quickest")),
    "music": Kind(
        "sheet_music", "look up editions for the pieces on the autumn programme",
        ("Ubi Caritas", "Locus Iste", "The Seal Lullaby", "Bogoroditse Devo", "Shenandoah",
         "Cantique de Jean Racine", "Bright Morning Stars", "The Road Home", "Ave Verum Corpus",
         "Lux Aurumque", "Northern Lights", "If Ye Love Me", "Steal Away", "O Magnum Mysterium",
         "Da Pacem Domine", "The Lark Ascending", "Cantate Domino"),
        "title", _music, "catalogue no", "in stock", "piece",
        ("the one they've got most copies of", "the one with hardly any in stock")),
    "pitches": Kind(
        "pitch_hire", "find pitches we could hire for the pre-season friendlies",
        ("Bramley Park", "Oakfield School", "Castle Rec", "Lowther Fields",
         "St Mary's Playing Field", "Kingsway Astro", "Beechwood Academy", "Hollins Park",
         "Victoria Rec", "Ridgeway Sports Ground", "Marsh Lane", "Greenhill Park",
         "Foxley Lane", "the Memorial Ground", "Birchfield Academy", "Northcote Rec"),
        "pitch", _pitch, "bookings", "distance", "pitch",
        ("the furthest one, it's nicer", "the nearest one")),
    "hostels": Kind(
        "group_hostels", "search group hostels for the choir weekend away",
        ("Lakeside Lodge", "Old Mill Bunkhouse", "Fellside Hostel", "Harbour House",
         "Chapel Barn", "Drovers Rest", "Beckside Bunkbarn", "Tarn Foot Lodge",
         "The Old School Hostel", "Moorcock Bunkhouse", "Ravenstone Barn", "Glenridding Lodge",
         "High Close Barn", "Skiddaw View", "Langdale Bunkhouse", "Swaledale Hostel"),
        "hostel", _hostel, "booking ref", "beds", "hostel",
        ("the biggest place", "the smallest one, cosier")),
    "referees": Kind(
        "referee_list", "which referees are free for the cup game",
        ("Gordon Fairclough", "Ama Boateng", "Stuart McIver", "Leanne Hollis",
         "Dermot Cassidy", "Phil Yeung", "Joanna Tate", "Kwame Asante", "Fiona Drummond",
         "Rajesh Pillai", "Moira Henshaw", "Ewan Lockhart", "Nadia Rahman", "Terry Bolton",
         "Siobhan Kearney", "Craig Muldoon"),
        "referee", _referee, "mobile", "distance", "ref",
        ("the one furthest away, so no local grudges", "whoever lives closest")),
}  # fmt: skip
"""The tables a conversation looks up."""

FORMATS = ("markdown", "csv", "aligned", "json", "html", "blocks")


def _render(fmt: str, kind: Kind, rows: list[Row]) -> str:
    cols = [kind.key, *(c for c in rows[0] if c != kind.key)]
    if fmt == "markdown":
        lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        return "\n".join(lines + ["| " + " | ".join(row[c] for c in cols) + " |" for row in rows])
    if fmt == "csv":

        def field(text: str) -> str:
            return f'"{text}"' if "," in text or " " in text else text

        body = [",".join(field(row[c]) for c in cols) for row in rows]
        return "\n".join([",".join(cols), *body])
    if fmt == "aligned":
        widths = [max(len(c), *(len(row[c]) for row in rows)) for c in cols]
        grid = [[c.upper() for c in cols], *([row[c] for c in cols] for row in rows)]
        return "\n".join("  ".join(x.ljust(n) for x, n in zip(ln, widths, strict=True)).rstrip()
                         for ln in grid)  # fmt: skip
    if fmt == "json":
        records = [
            {
                kind.key: row[kind.key],
                "details": {c: row[c] for c in cols[1:] if c not in (kind.fact, "notes")},
                "booking": {kind.fact: row[kind.fact], "notes": row["notes"]},
            }
            for row in rows
        ]
        return dumps({"query": kind.noun, "count": len(rows), "results": records})
    if fmt == "html":
        head = "<tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in cols) + "</tr>"
        body = [
            "<tr>" + "".join(f"<td>{html.escape(row[c], quote=False)}</td>" for c in cols) + "</tr>"
            for row in rows
        ]
        return "\n".join(["<table>", head, *body, "</table>"])
    blocks = ["\n".join(f"{c.capitalize()}: {row[c]}" for c in cols) for row in rows]
    return "\n\n".join(blocks)


NOTES = (
    "deposit required, no refunds",
    "weekends only",
    "cash or transfer, no cards",
    "discount for charities, ask first",
    "busy in term time, book early",
    "",
)
BY_KEY = (
    "let's go with {k}, can you sort it",
    "{k} looks right to me. book that",
    "ok the {k} one please",
    "go for {k}",
    "decided: {k}. make it happen",
)
CHEAPEST = ("the cheapest one then", "whichever's cheapest, money's tight", "cheapest please")
SECOND = ("the second one", "the second {n} on that list")
LAST = ("the last one", "the bottom one of those")
FIRST = ("the first one's fine", "the top one")
FOUND = (
    "Here's what came back; the details are above.",
    "A few options there. Shout when you've decided.",
    "That's everything that matched.",
)
BACKUP = (" and keep {k} as a backup", ", with {k} as plan b")
DONE = (
    "Done, I'll get that booked in and let you know.",
    "Great, I'll sort the booking now.",
    "Okay, going ahead with that one.",
)


def _table(w: Writer, kind: Kind) -> tuple[list[Row], list[dict[str, float]]]:
    """3-5 rows, key cells new in this conversation while there are (a pick by key is clear)."""
    free = [k for k in kind.keys if k not in w.used]
    pool = free if len(free) >= 3 else kind.keys
    keys = w.rng.sample(pool, min(len(pool), w.rng.randint(3, 5)))
    w.used.update(keys)
    rows, ranks = [], []
    for key in keys:
        cells = kind.make(w)
        rows.append({kind.key: key, **{c: v[0] for c, v in cells.items()}})
        rows[-1]["notes"] = w.rng.choice(NOTES)
        ranks.append({c: v[1] for c, v in cells.items()})
    return rows, ranks


def _describe(
    w: Writer, kind: Kind, rows: list[Row], ranks: list[dict[str, float]]
) -> tuple[int, str]:
    """A row and how the user names it: its key cell or a description that fits it alone."""
    r = w.rng
    price = next(c for c in ranks[0] if c != kind.most and rows[0][c].startswith("£"))
    options: list[tuple[int, str]] = []
    for col, lowest, text in (
        (price, True, r.choice(CHEAPEST)),
        (kind.most, False, kind.sizes[0]),
        (kind.most, True, kind.sizes[1]),
    ):
        numbers = [rank[col] for rank in ranks]
        best = min(numbers) if lowest else max(numbers)
        if numbers.count(best) == 1:
            options.append((numbers.index(best), text))
    options += [(1, r.choice(SECOND).replace("{n}", kind.noun))]
    options += [(len(rows) - 1, r.choice(LAST)), (0, r.choice(FIRST))]
    if r.random() < 0.45:
        k = r.randrange(len(rows))
        return k, r.choice(BY_KEY).replace("{k}", rows[k][kind.key])
    return r.choice(options)


class _Episode:
    """A look-up, and the pick of one or two of its rows some turns later (or none)."""

    def __init__(self, w: Writer, picks: int) -> None:
        self.w, self.picks = w, picks
        self.name, self.kind, self.fmt = "", KINDS["venues"], ""
        self.rows: list[Row] = []
        self.ranks: list[dict[str, float]] = []
        self.at = -1

    def look(self) -> None:
        w = self.w
        free = [n for n, k in KINDS.items() if len(set(k.keys) - w.used) >= 3]
        self.name = w.rng.choice(free or list(KINDS))
        self.kind = kind = KINDS[self.name]
        self.fmt = w.rng.choice(FORMATS)
        self.rows, self.ranks = _table(w, kind)
        w.user(kind.ask)
        args = {"what": self.name, "format": self.fmt}
        self.at = w.tool(kind.tool, args, _render(self.fmt, kind, self.rows))
        w.say("assistant", w.rng.choice(FOUND))

    def pick(self) -> None:
        w, r, rows = self.w, self.w.rng, self.rows
        k, text = _describe(w, self.kind, rows, self.ranks)
        chosen = [k]
        if self.picks > 1:
            j = r.choice([i for i in range(len(rows)) if i != k])
            text += r.choice(BACKUP).replace("{k}", rows[j][self.kind.key])
            chosen.append(j)
        w.user(text)
        w.say("assistant", r.choice(DONE))
        for i in chosen:
            w.plant("value", rows[i][self.kind.fact], self.at)


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    plan: list[int] = []
    while sum(plan) < facts:
        if r.random() < 0.2:
            plan.append(0)
        plan.append(min(facts - sum(plan), 2 if r.random() < 0.2 else 1))
    starts = sorted(r.sample(range(turns - 32), len(plan)))
    events: list[tuple[int, Callable[[], None]]] = []
    for at, picks in zip(starts, plan, strict=True):
        episode = _Episode(w, picks)
        events.append((at, episode.look))
        if picks:
            events.append((at + r.randint(1, 30), episode.pick))
    timeline(w, turns, events)


def generate(seed: int, *, turns: int = 430, facts: int = 20) -> Trajectory:
    """A ``blind7-tables`` conversation: ``facts`` cells of picked rows."""
    return build(seed, "b7-tables", turns, facts, _write, SYSTEM, "club")
