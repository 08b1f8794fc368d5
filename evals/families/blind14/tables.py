"""``blind14-tables``: a stained-glass workshop's commissions in the shapes real tools print.

A ``workshop`` tool lists 3-5 open commissions (client, window, ref, quote, due, notes) as YAML,
a fixed-width report with a title and a totals line, JSON Lines, an HTML table, TSV or a psql
result with its ``(N rows)`` footer. The fact is one cell of one row (its ref, quote or due
date); the user names the row by its client or by words of its long notes, in the request, a
few turns after the listing or much later, and never says the cell. Between them come status
checks of the kiln and the glass stock listed again and again with small changes.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from evals.families.blind6.base import build, dumps, spread, timeline
from evals.families.blind14.base import Writer14
from evals.families.trajectories import Trajectory

__all__ = ["CLIENTS", "FORMATS", "NOTES", "generate", "render"]

CLIENTS = (
    "St Edburga's Bicester", "Holy Rood Wootton", "Ashcombe Manor", "St Wystan's Repton",
    "Greyfriars Chapel", "The Old Rectory Lydford", "St Mellion Parish", "Tredegar Arms",
    "Kettering Methodist", "St Cuthbert's Wells", "Harlow Grange", "Bishop's Palace Lodge",
    "St Ia's Porthleven", "Ravenscroft School", "Alderley Hall", "St Brannock's Braunton",
    "Coldharbour Farmhouse", "Quaker Meeting House Ross", "St Hywyn's Aberdaron", "Linton Villa",
    "St Enodoc's", "Penrose Almshouses", "Marlow Boathouse", "St Oswald's Grasmere",
    "Bramble Cottage", "Hexham Abbey Shop", "St Kew Inn", "Dunsford Mill",
)  # fmt: skip
WINDOWS = (
    "east window, three lights", "porch roundel", "rose window tracery", "landing sash",
    "fanlight over front door", "memorial lancet", "bathroom leaded lights", "vestry quarries",
    "stairwell panel", "clerestory pair", "kitchen door panels", "west window lower tier",
)  # fmt: skip
NOTES: tuple[tuple[str, str], ...] = (
    ("scaffold already up from the roofers, must finish before they strike it", "scaffold"),
    ("donor wants the dove kept exactly as it was, no new painted glass", "dove"),
    ("previous repair used car body filler, all of it to come out", "car body filler"),
    ("bats roost above the window, ecologist must be on site", "bats"),
    ("panel bowed badly, needs releading and new saddle bars", "saddle bars"),
    ("client asked for a protective glazing quote as a separate item", "protective glazing"),
    ("heritage officer to sign off the replacement glass colours first", "heritage officer"),
    ("access only through the organ loft, narrow ladder", "organ loft"),
    ("storm damage insurance claim, adjuster wants photos of every piece", "adjuster"),
    ("painted faces flaking, conservator to consolidate before any cleaning", "painted faces"),
    ("house sale completing soon, new owners inherit the job", "house sale"),
    ("matching streaky ruby glass has to be ordered from Germany", "streaky ruby"),
    ("lead came cracked all round the border, replace border only", "border only"),
    ("shop sign panel, keep the gilded lettering intact", "gilded lettering"),
    ("school holidays only, no work while pupils are in the building", "school holidays"),
    ("vandal broke two quarries, police reference on the file", "police reference"),
    ("stone mullion loose, mason booked to reset it first", "stone mullion"),
    ("customer collects the panels themselves in a horsebox", "horsebox"),
    ("woodworm in the frame, joiner to replace the timber surround", "woodworm"),
    ("commemorative panel, the inscription must be spelled exactly as supplied", "inscription"),
    ("flat-roofed extension below, crane hire needed for removal", "crane hire"),
    ("pigeons nesting behind the wire guard, clean and refit the guard", "wire guard"),
)  # fmt: skip
PLAIN = (
    "standard clean and reputty", "routine releading", "glazing bars repainted",
    "small crack, copper foil repair", "quote as discussed on the phone", "no access issues",
)  # fmt: skip
COLUMNS = ("client", "window", "ref", "quote", "due", "notes")
FORMATS = ("yaml", "report", "jsonl", "html", "tsv", "psql")
_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
CELLS = {"ref": ("code", "job ref"), "quote": ("value", "quote"), "due": ("date", "due date")}


def _psql(rows: Sequence[dict[str, str]]) -> str:
    widths = [max(len(c), *(len(r[c]) for r in rows)) for c in COLUMNS]
    head = "|".join(f" {c.center(w)} " for c, w in zip(COLUMNS, widths, strict=True))
    rule = "+".join("-" * (w + 2) for w in widths)
    body = [
        "|".join(f" {r[c].ljust(w)} " for c, w in zip(COLUMNS, widths, strict=True)).rstrip()
        for r in rows
    ]
    return "\n".join([head.rstrip(), rule, *body, f"({len(rows)} rows)"])


def _report(rows: Sequence[dict[str, str]]) -> str:
    widths = [max(len(c), *(len(r[c]) for r in rows)) + 2 for c in COLUMNS[:-1]]
    lines = ["OPEN COMMISSIONS - GLASS WORKSHOP", ""]
    lines.append(
        "".join(c.upper().ljust(w) for c, w in zip(COLUMNS, widths, strict=False)) + "NOTES"
    )
    lines.append("-" * (sum(widths) + 5))
    for r in rows:
        cells = "".join(r[c].ljust(w) for c, w in zip(COLUMNS, widths, strict=False))
        lines.append(cells + r["notes"])
    lines.append("-" * (sum(widths) + 5))
    total = sum(float(r["quote"]) for r in rows)
    lines.append(f"TOTAL {len(rows)} commissions, quoted {total:.2f}")
    return "\n".join(lines)


def render(fmt: str, rows: Sequence[dict[str, str]]) -> str:
    """The commissions as the ``workshop`` tool prints them in ``fmt``."""
    if fmt == "yaml":
        return "\n".join(
            "\n".join(
                f"{'- ' if i == 0 else '  '}{c}: {r[c]!r}"
                if c == "quote"
                else f"{'- ' if i == 0 else '  '}{c}: {r[c]}"
                for i, c in enumerate(COLUMNS)
            )
            for r in rows
        ).replace("'", "")
    if fmt == "report":
        return _report(rows)
    if fmt == "jsonl":
        return "\n".join(dumps({c: r[c] for c in COLUMNS}) for r in rows)
    if fmt == "html":
        head = "".join(f"<th>{c}</th>" for c in COLUMNS)
        body = "".join(
            "<tr>" + "".join(f"<td>{r[c]}</td>" for c in COLUMNS) + "</tr>\n" for r in rows
        )
        return f"<table>\n<tr>{head}</tr>\n{body}</table>"
    if fmt == "tsv":
        return "\n".join(["\t".join(COLUMNS), *("\t".join(r[c] for c in COLUMNS) for r in rows)])
    return _psql(rows)


class _Tables(Writer14):
    def iso(self) -> tuple[str, tuple[str, ...]]:
        r = self.rng

        def make() -> str:
            return f"2027-{r.randint(3, 11):02d}-{r.randint(1, 28):02d}"

        value = self.fresh(make)
        _, m, d = value.split("-")
        month = _MONTHS[int(m) - 1]
        return value, (f"{int(d)} {month} 2027", f"{month} {int(d)}, 2027")

    def quote(self) -> tuple[str, tuple[str, ...]]:
        r = self.rng
        value = self.fresh(lambda: f"{r.randint(380, 9800)}.{r.choice(('00', '50', '25', '75'))}")
        pounds, pence = value.split(".")
        return value, (f"£{int(pounds):,}.{pence}",)

    targets: list[str]
    others: list[str]

    def row(self, notes: str | None = None, client: str | None = None) -> dict[str, str]:
        r = self.rng
        return {
            "client": client or r.choice(self.others),
            "window": r.choice(WINDOWS),
            "ref": self.code("SG-99999"),
            "quote": self.quote()[0],
            "due": self.iso()[0],
            "notes": notes or r.choice(PLAIN),
        }

    # -- filler tool calls ---------------------------------------------------------------

    def stock(self) -> None:
        r = self.rng
        asks = ("how's the glass stock looking", "list the stock again", "stock check please")
        self.user(r.choice(asks))
        colours = ("ruby", "cobalt", "amber", "opal white", "pale green", "flashed blue")
        makers = ("Lamberts", "Tatra", "Wissmach", "Bullseye")
        lines = ["SHEET            MAKER      SHEETS  RACK"]
        for c in r.sample(colours, 4):
            lines.append(f"{c:<17}{r.choice(makers):<11}{r.randint(1, 30):<8}{r.choice('ABCDEF')}")
        self.tool("glass_stock", {"all": True}, "\n".join(lines), lead=r.choice((None, "Listing.")))
        self.say(
            "assistant",
            r.choice(
                (
                    "That's the current stock.",
                    "Here it is, a couple of racks changed since last time.",
                    "Stock listed above.",
                )
            ),
        )

    def kiln(self) -> None:
        r = self.rng
        self.user(r.choice(("is the kiln done yet", "kiln status?", "check the kiln for me")))
        state = r.choice(
            (
                "idle, door closed",
                "cooling, do not open",
                "firing, ramp two",
                "holding at soak",
                "idle, last firing completed cleanly",
            )
        )
        self.tool("kiln_status", {}, f"kiln: {state}\nalarms: none")
        self.say(
            "assistant",
            r.choice(
                (
                    "The kiln reports as above.",
                    "Nothing to worry about there.",
                    "All normal from the kiln.",
                )
            ),
        )

    # -- the commission listings ----------------------------------------------------------

    def listing(self, fmt: str, way: str, by: str, cell: str) -> Callable[[], None] | None:
        r = self.rng
        notes, handle = self.fresh(lambda: "|".join(r.choice(NOTES))).split("|")
        rows = [self.row(client=c) for c in r.sample(self.others, r.randint(2, 4))]
        target = self.row(notes, self.targets.pop())
        rows.insert(r.randrange(len(rows) + 1), target)
        kind, _ = CELLS[cell]
        name = f"the {target['client']} one" if by == "client" else f"the {handle} one"
        asks = {
            "ref": (f"what's the job ref on {name}", f"I need the reference for {name}"),
            "quote": (f"how much did we quote for {name}", f"what was our price on {name}"),
            "due": (f"when is {name} due", f"remind me when {name} has to be done"),
        }[cell]
        ask = r.choice(asks)
        if way == "request":
            self.user(f"pull up the open commissions, {ask}")
        else:
            self.user(
                r.choice(
                    (
                        "show me the open commissions",
                        "list the open jobs",
                        "can you get the commissions list up",
                    )
                )
            )
        at = self.tool("workshop", {"list": "open", "format": fmt}, render(fmt, rows))
        value = target[cell]
        aliases: tuple[str, ...] = ()
        if cell == "quote":
            pounds, pence = value.split(".")
            aliases = (f"£{int(pounds):,}.{pence}",)
        if cell == "due":
            _, m, d = value.split("-")
            month = _MONTHS[int(m) - 1]
            aliases = (f"{int(d)} {month} 2027", f"{month} {int(d)}, 2027")
        self.plant(kind, value, at, aliases=aliases)  # type: ignore[arg-type]
        point = f"It's on the {target['client']} row of the list above, in the {cell} column."

        def refer(late: bool) -> None:
            lead = "going back to the commissions list from earlier, " if late else ""
            self.user(f"{lead}{ask}")
            self.say("assistant", point)

        if way == "request":
            self.say("assistant", f"Here are the open commissions. {point}")
            return None
        self.say(
            "assistant",
            r.choice(
                ("Here are the open commissions.", "That's the list.", "Open jobs listed above.")
            ),
        )
        if way == "soon":
            for _ in range(r.randint(0, 2)):
                self.chatter()
            refer(False)
            return None
        return lambda: refer(True)


def _write(w: _Tables, turns: int, facts: int) -> None:
    r = w.rng
    pool = list(CLIENTS)
    r.shuffle(pool)
    w.targets, w.others = pool[:facts], pool[facts:]
    ways = ["request", "soon", "late"] * (facts // 3 + 1)
    r.shuffle(ways)
    shapes = [FORMATS[k % len(FORMATS)] for k in range(facts)]
    r.shuffle(shapes)
    cells = [r.choice(tuple(CELLS)) for _ in range(facts)]
    bys = [r.choice(("client", "notes")) for _ in range(facts)]
    span = turns - 100 if turns > 200 else turns // 2  # a short run: half its turns
    starts = spread(r, span, facts, min(12, span // facts))
    events: list[tuple[int, Callable[[], None]]] = []

    def episode(k: int) -> Callable[[], None]:
        def go() -> None:
            later = w.listing(shapes[k], ways[k], bys[k], cells[k])
            if later is not None:
                events.append((w.turn + r.randint(30, 90), later))
                events.sort(key=lambda e: e[0])

        return go

    plan = [(s, episode(k)) for k, s in enumerate(starts)]
    plan += [(r.randrange(turns - 10), w.stock) for _ in range(12)]
    plan += [(r.randrange(turns - 10), w.kiln) for _ in range(10)]
    plan.sort(key=lambda e: e[0])
    # the late references are only known once their listing is written: run the plan here
    k = 0
    while k < len(plan) or events or w.turn + 1 < turns:
        nxt = min([e[0] for e in plan[k : k + 1]] + [e[0] for e in events[:1]], default=None)
        if nxt is not None and nxt <= w.turn + 1:
            if events and events[0][0] == nxt and (k >= len(plan) or events[0][0] <= plan[k][0]):
                events.pop(0)[1]()
            else:
                plan[k][1]()
                k += 1
        elif w.turn + 1 < turns or nxt is not None:
            w.chatter()
        else:
            break


def generate(seed: int, *, turns: int = 420, facts: int = 20) -> Trajectory:
    """One workshop conversation: ``facts`` cells pointed at by their row (see the module)."""
    return build(
        seed,
        "b14-tables",
        turns,
        facts,
        _write,
        "You are the office assistant of a small stained-glass restoration workshop. You can "
        "list its commissions, the glass stock and the kiln's status.",
        writer=lambda rng, system: _Tables(rng, system, "glass"),
        prefix="blind14",
    )


_ = (random, timeline)
