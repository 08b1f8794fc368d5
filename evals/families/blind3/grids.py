r"""``blind3-grids``: tool results that are tables in the shapes people actually get.

Five shapes, in turn: ``psql`` output with ``\pset border 2`` (``+---+`` borders and a row
count), a pandas ``DataFrame`` repr (index column, right-aligned cells), a block copied out of
Excel (tab-separated, ``\r\n`` line ends, formatted amounts and UK dates), a JSON array of
objects, and a markdown table with alignment colons. 3-15 turns after a planted table the user
refers to one of its rows by a cell of a column other than the first ("the one in Gdansk",
"the Halvorsen order") and asks for something done with it; the fact is another cell of that
row (its id, amount or date), which nobody says again. Filler: more tables of the same shapes
that nobody refers to, and chat.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence

from evals.families.blind3.base import Conversation, smalltalk

__all__ = ["FORMATS", "markdown", "pandas_repr", "psql", "tsv", "write"]

Row = list[str]
Format = Callable[[Sequence[str], Sequence[Row], Sequence[bool]], str]


def psql(headers: Sequence[str], rows: Sequence[Row], numeric: Sequence[bool]) -> str:
    r"""``psql`` with ``\pset border 2``: centred headers, numbers right, text left."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    head = "| " + " | ".join(h.center(w) for h, w in zip(headers, widths, strict=True)) + " |"
    body = [
        "| "
        + " | ".join(
            c.rjust(w) if n else c.ljust(w) for c, w, n in zip(r, widths, numeric, strict=True)
        )
        + " |"
        for r in rows
    ]
    return "\n".join([rule, head, rule, *body, rule, f"({len(rows)} rows)"])


def pandas_repr(headers: Sequence[str], rows: Sequence[Row], numeric: Sequence[bool]) -> str:
    """A ``DataFrame``'s repr: the index left-aligned, every column right-aligned."""
    index = [str(i) for i in range(len(rows))]
    iw = max(len(i) for i in index)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    lines = [" " * iw + "".join("  " + h.rjust(w) for h, w in zip(headers, widths, strict=True))]
    for i, r in zip(index, rows, strict=True):
        lines.append(
            i.ljust(iw) + "".join("  " + c.rjust(w) for c, w in zip(r, widths, strict=True))
        )
    return "\n".join(lines) + f"\n\n[{len(rows)} rows x {len(headers)} columns]"


def tsv(headers: Sequence[str], rows: Sequence[Row], numeric: Sequence[bool]) -> str:
    r"""Cells copied out of a spreadsheet: tabs between, ``\r\n`` after each row."""
    return "".join("\t".join(r) + "\r\n" for r in [list(headers), *rows])


def json_records(headers: Sequence[str], rows: Sequence[Row], numeric: Sequence[bool]) -> str:
    """A JSON array of objects (numbers as numbers)."""
    return json.dumps(
        [
            {h: _number(c) if n else c for h, c, n in zip(headers, r, numeric, strict=True)}
            for r in rows
        ],
        indent=2,
    )


def markdown(headers: Sequence[str], rows: Sequence[Row], numeric: Sequence[bool]) -> str:
    """A markdown table with alignment colons (numbers ``---:``, the first column ``:---``)."""
    aligns = [("---:" if n else (":---" if i == 0 else ":---:")) for i, n in enumerate(numeric)]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(aligns) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _number(cell: str) -> float | int:
    plain = cell.replace(",", "")
    return float(plain) if "." in plain else int(plain)


_KIND = {
    "order_id": "code",
    "total_gbp": "value",
    "sku": "code",
    "unit_price": "value",
    "invoice": "code",
    "due": "date",
    "amount": "value",
    "host": "code",
    "ip": "code",
    "last_deploy": "date",
}

FORMATS: dict[str, Format] = {
    "psql": psql,
    "pandas": pandas_repr,
    "tsv": tsv,
    "json": json_records,
    "markdown": markdown,
}

_CITIES = (
    "Gdansk",
    "Porto",
    "Tampere",
    "Ghent",
    "Brno",
    "Aarhus",
    "Cork",
    "Bilbao",
    "Lyon",
    "Trieste",
    "Poznan",
    "Malmo",
    "Graz",
    "Utrecht",
    "Leipzig",
    "Turku",
    "Split",
    "Bergen",
    "Nantes",
    "Kaunas",
)
_SURNAMES = (
    "Halvorsen",
    "Okonjo",
    "Brightwell",
    "Castellano",
    "Vesely",
    "Lindqvist",
    "Mbatha",
    "Quarrie",
    "Fairbanks",
    "Novak",
    "Ostrowski",
    "Achterberg",
    "Delaney",
    "Ruiz-Tagle",
    "Sorensen",
    "Kowalczyk",
    "Pemberton",
    "Yilmaz",
    "Ferreira",
    "Duchamp",
)
_ITEMS = (
    "walnut desk",
    "oak bench",
    "linen lampshade",
    "steel shelving",
    "wool rug",
    "ash stool",
    "cane chair",
    "brass mirror",
    "pine bookcase",
    "rattan basket",
    "marble tray",
    "beech cot",
    "velvet pouffe",
    "teak sideboard",
)
_STATUS = ("shipped", "pending", "on hold", "packed", "delivered", "returned")
_L = "ABCDEFGHJKLMNPRSTUVWXYZ"


def _money(rng: random.Random) -> str:
    return f"{rng.randint(120, 9800):,}.{rng.randint(0, 99):02d}"


def _ukdate(rng: random.Random) -> str:
    return f"{rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/2027"


def _table(
    rng: random.Random, fmt: str, nrows: int
) -> tuple[str, list[str], list[Row], list[bool], int, str]:
    """A table: (tool name, headers, rows, numeric flags, check column, what a row is)."""
    kind = rng.randrange(4)
    surnames = rng.sample(_SURNAMES, nrows)
    cities = rng.sample(_CITIES, nrows)
    if kind == 0:
        headers = ["order_id", "customer", "city", "status", "total_gbp"]
        rows = [
            [f"SO-{rng.randint(100000, 999999)}", s, c, rng.choice(_STATUS), _money(rng)]
            for s, c in zip(surnames, cities, strict=True)
        ]
        return (
            "query_orders",
            headers,
            rows,
            [False, False, False, False, True],
            rng.choice((0, 4)),
            "order",
        )
    if kind == 1:
        headers = ["sku", "item", "warehouse", "qty", "unit_price"]
        items = rng.sample(_ITEMS, nrows)
        rows = [
            [
                f"{rng.choice(_L)}{rng.choice(_L)}{rng.randint(1000, 9999)}-{rng.choice(_L)}",
                it,
                c,
                str(rng.randint(0, 480)),
                _money(rng),
            ]
            for it, c in zip(items, cities, strict=True)
        ]
        return (
            "stock_report",
            headers,
            rows,
            [False, False, False, True, True],
            rng.choice((0, 4)),
            "line",
        )
    if kind == 2:
        headers = ["invoice", "supplier", "due", "amount", "state"]
        rows = [
            [
                f"INV-{rng.randint(2027000, 2027999)}",
                f"{s} & Co",
                _ukdate(rng),
                _money(rng),
                rng.choice(("open", "overdue", "disputed", "paid")),
            ]
            for s in surnames
        ]
        return (
            "list_invoices",
            headers,
            rows,
            [False, False, False, True, False],
            rng.choice((0, 2, 3)),
            "invoice",
        )
    headers = ["host", "owner", "region", "ip", "last_deploy"]
    rows = [
        [
            f"{c.lower()}-{rng.choice(('api', 'db', 'cache', 'worker'))}-{rng.randint(10, 99)}",
            s,
            c,
            f"10.{rng.randint(16, 250)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}",
            f"2027-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} "
            f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}",
        ]
        for s, c in zip(surnames, cities, strict=True)
    ]
    return (
        "inventory_hosts",
        headers,
        rows,
        [False, False, False, False, False],
        rng.choice((0, 3, 4)),
        "host",
    )


_POINTERS = (
    "Ok, the {ref} one: can you flag that {what} for me, I'll ring them about it after lunch.",
    "Put the {ref} {what} on my list for Monday, I want to chase it myself.",
    "That {what} for {ref} - leave it as it is for now but mark it so I don't forget it.",
    "Right, whatever we do, the {ref} {what} is the one I care about. Park it until I've spoken "
    "to finance.",
    "Can you add a note against the {ref} {what}? Something like 'check with Dom before touching'.",
)
_DONE = (
    "Done, I've flagged it and added it to your Monday list.",
    "Noted. It's marked and nothing else about it has changed.",
    "Marked. I'll leave it alone until you say otherwise.",
    "Done: the note is on it.",
)


def write(rng: random.Random, turns: int, facts: int) -> Conversation:
    """``facts`` planted tables, each pointed at 3-15 turns later, among filler tables and chat."""
    conv = Conversation(
        "You are an operations assistant with read access to the company's order, stock, invoice "
        "and host systems."
    )
    names = list(FORMATS)
    plant_turns = set()
    step = max(1, (turns - 20) // max(1, facts))
    for i in range(facts):
        plant_turns.add(2 + i * step + rng.randrange(max(1, step // 2)))
    pointers: dict[
        int, tuple[str, str, str, int]
    ] = {}  # turn -> (reference cell, what, value, table message)
    fmt_i = 0
    for turn in range(turns):
        if turn in pointers:
            ref, what, value, _ = pointers.pop(turn)
            conv.user(rng.choice(_POINTERS).format(ref=ref, what=what))
            conv.assistant(rng.choice(_DONE))
            continue
        if turn in plant_turns or rng.random() < 0.3:
            fmt = names[fmt_i % len(names)]
            fmt_i += 1
            tool, headers, rows, numeric, check_col, what = _table(rng, fmt, rng.randint(6, 14))
            text = FORMATS[fmt](headers, rows, numeric)
            ask = rng.choice(
                (
                    "Pull up the {w}s for this week?",
                    "What does the {w} list look like today?",
                    "Show me the current {w}s please.",
                    "Can you get me the {w}s?",
                )
            ).format(w=what)
            conv.user(ask)
            idx = conv.tool(tool, {"format": fmt, "limit": len(rows)}, text)
            conv.assistant(
                f"Here are the {len(rows)} {what}s. Anything you want me to do with them?"
            )
            if turn in plant_turns:
                r = rng.randrange(len(rows))
                ref_col = rng.choice([c for c in (1, 2) if c != check_col])
                value = rows[r][check_col]
                if fmt == "json" and numeric[check_col]:
                    value = json.dumps(_number(value))
                later = turn + rng.randint(3, 15)
                while later in pointers or later in plant_turns:
                    later += 1
                if later < turns:
                    pointers[later] = (rows[r][ref_col], what, value, idx)
                    conv.plant(_KIND[headers[check_col]], value, idx)
            continue
        user, answer = smalltalk(rng)
        conv.user(user)
        conv.assistant(answer)
    return conv
