"""Tables in tool results, in the shapes people really get back, one row pointed at later.

Plants ``facts`` cells, one per planted table, each in a tool result of one of six formats:
``kubectl get pods`` and ``df -h`` (fixed-width columns), a bank export as TSV, a staff page
as an HTML table, a YAML list of appliance records, and a shop API's nested JSON (orders with
customers, items and shipments). A few turns later (3 to 20) the user acts on that row by what
distinguishes it ("the one that keeps crashing", "the payroll person", "the washing machine",
"the Brannigan order") without saying the value; the assistant does not repeat it either.
Between them come tables of the same formats with nothing pointed at, and the chatter of
:mod:`evals.families.blind2.base`. Scored by the trajectories runner: each cell is a fact of
kind ``code`` (pod names, tracking numbers), ``value`` (free space, amounts), ``name`` (a
person) or ``date`` (a warranty's end, ISO in the table; other forms accepted), in view after
1, 3 and 10 reductions and at the end.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from html import escape

from evals.families.blind2.base import FIRST, LAST, TOWNS, Writer, pick_turns
from evals.families.facts import FactKind

__all__ = ["FORMATS", "write"]

SYSTEM = (
    "You are Wren, an assistant with a shell on the user's work cluster and laptop, their "
    "bank exports, the office intranet, the shop's admin API and the household files."
)


@dataclass
class Table:
    """A tool call with a table in its result; ``value`` is the planted cell (if any)."""

    ask: str
    tool: str
    args: dict[str, object]
    text: str
    value: str = ""
    aliases: tuple[str, ...] = ()
    kind: FactKind = "value"
    later: str = ""
    reply: str = ""


SERVICES = (
    "payments-api", "checkout-web", "ledger-worker", "notifier", "search-indexer",
    "auth-gateway", "report-cron", "image-resizer", "billing-sync", "cart-service",
    "inventory-api", "email-relay", "pdf-renderer", "geo-lookup", "session-store",
    "price-feed", "audit-writer", "thumbnailer", "webhook-fanout", "quota-keeper",
)  # fmt: skip
_HEX = "0123456789abcdef"
_ALNUM = "bcdfghjklmnpqrstvwxz2456789"


def _pad(rows: list[list[str]], gap: int = 3) -> str:
    """Rows as fixed-width columns, the way a CLI prints them."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(
        (" " * gap).join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    )


def _pod(r: random.Random, service: str) -> tuple[str, tuple[str, ...]]:
    """A pod's name as a deployment makes it: the service, a template hash, a suffix."""
    template = "".join(r.choices(_HEX, k=r.choice((9, 10))))
    return f"{service}-{template}-{''.join(r.choices(_ALNUM, k=5))}", ()


def kubectl(w: Writer, plant: bool) -> Table:
    r = w.rng
    ns = r.choice(("prod", "staging", "shop", "internal"))
    services = r.sample(SERVICES, r.randint(6, 16))
    bad = r.randrange(len(services)) if plant else -1
    rows = [["NAME", "READY", "STATUS", "RESTARTS", "AGE"]]
    value = ""
    for i, svc in enumerate(services):
        name = w.fresh(functools.partial(_pod, r, svc))[0]
        if i == bad:
            value = name
            status, ready, restarts = "CrashLoopBackOff", "0/1", str(r.randint(14, 310))
        else:
            status = r.choice(("Running",) * 8 + ("Completed",) if plant else ("Running",))
            ready = "0/1" if status == "Completed" else "1/1"
            restarts = str(r.choice((0, 0, 0, 1, 2, 3)))
        age = f"{r.randint(1, 40)}d" if r.random() < 0.6 else f"{r.randint(2, 23)}h"
        rows.append([name, ready, status, restarts, age])
    asks = (
        f"Something's off in {ns}, what pods have we got?",
        f"kubectl get pods in {ns} for me please",
        f"can you list what's running in the {ns} namespace",
        f"Quick look at the {ns} pods?",
    )
    later = (
        "Pull the last 200 lines of logs from the one that's crash looping.",
        "ok that crashing pod, delete it and let the deployment bring up a fresh one",
        "Can you describe the pod that keeps restarting? I want to see the events.",
        "restart the broken one, I'll watch the dashboard",
    )
    replies = (
        "Done. The replacement is coming up now.",
        "Here you go, the events show an OOMKilled before each restart.",
        "Done, the logs end with a connection refused to the database.",
    )
    return Table(
        r.choice(asks),
        "shell",
        {"cmd": f"kubectl get pods -n {ns}"},
        _pad(rows),
        value,
        (),
        "code",
        r.choice(later),
        r.choice(replies),
    )


MOUNTS = (
    ("/dev/nvme0n1p2", "/"), ("/dev/nvme0n1p1", "/boot/efi"), ("tmpfs", "/run"),
    ("/dev/sda1", "/srv/backups"), ("/dev/sdb1", "/mnt/photos"), ("/dev/mapper/vg0-home", "/home"),
    ("/dev/mapper/vg0-docker", "/var/lib/docker"), ("/dev/sdc1", "/mnt/scratch"),
    ("tmpfs", "/dev/shm"), ("/dev/sdd2", "/srv/media"), ("/dev/loop3", "/snap/core22/1380"),
)  # fmt: skip
_MOUNT_WORDS = {
    "/srv/backups": "the backups disk",
    "/mnt/photos": "the photos drive",
    "/home": "home",
    "/var/lib/docker": "the docker volume",
    "/mnt/scratch": "scratch",
    "/srv/media": "the media drive",
}


def _human(gb: float) -> str:
    """A size the way ``df -h`` prints it: ``3.3T``, ``215G``, ``9.8G``."""
    if gb >= 1000:
        return f"{gb / 1000:.1f}T"
    return f"{gb:.0f}G" if gb >= 10 else f"{gb:.1f}G"


def df(w: Writer, plant: bool) -> Table:
    r = w.rng
    mounts = r.sample(MOUNTS, r.randint(5, len(MOUNTS)))
    targets = [i for i, (_, m) in enumerate(mounts) if m in _MOUNT_WORDS]
    if plant and not targets:
        mounts[0] = ("/dev/sda1", "/srv/backups")
        targets = [0]
    pick = r.choice(targets) if plant else -1
    rows = [["Filesystem", "Size", "Used", "Avail", "Use%", "Mounted on"]]
    value = ""
    for i, (dev, mount) in enumerate(mounts):
        if dev.startswith("/dev/loop"):  # a snap's squashfs: always full
            rows.append([dev, "74M", "74M", "0", "100%", mount])
            continue
        size = r.choice((4, 8, 16, 32) if dev == "tmpfs" else (64, 256, 512, 931, 1800, 3600))
        if mount == "/boot/efi":
            size = 1
        for _ in range(1000):
            pct = r.randint(1, 99)
            used, avail = _human(size * pct / 100), _human(size * (100 - pct) / 100)
            if i == pick:  # a planted cell: whole gigabytes, never seen before
                if (
                    avail.endswith("G")
                    and "." not in avail
                    and avail.lower() not in w.used | w.seen
                ):
                    value = w.fresh(lambda: (avail, ()))[0]  # noqa: B023 - called at once
                    break
            elif not {used.lower(), avail.lower()} & w.used:  # never a planted value
                w.seen.update({used.lower(), avail.lower()})
                break
        rows.append([dev, _human(size), used, avail, f"{pct}%", mount])
    words = _MOUNT_WORDS[mounts[pick][1]] if plant else ""
    asks = (
        "How's disk space on the NAS box?",
        "df -h on the home server please",
        "Am I about to run out of space anywhere?",
        "check the disks on the server",
    )
    later = (
        f"Right, will the holiday videos fit on {words}? It's about 90 gigs.",
        f"Start the copy onto {words} if there's room, otherwise tell me.",
        f"Before I buy a new drive, is {words} really that full? Go by what you saw.",
    )
    replies = (
        "Going by that listing, I'll check it against the size first.",
        "Okay, working from that listing.",
        "Noted, I'll keep an eye on it.",
    )
    return Table(
        r.choice(asks), "shell", {"cmd": "df -h", "host": "nas"}, _pad(rows, 1), value, (), "value",
        r.choice(later), r.choice(replies),
    )  # fmt: skip


MERCHANTS = (
    "Hollins Joinery Ltd", "Bramble & Finch Florists", "Oakmere Dental Practice",
    "Castleton Roofing", "Pickering Vets", "Riverside Storage", "Whitcombe Opticians",
    "Larkfield Driving School", "Tanner Street Garage", "Greystone Solicitors",
    "Marlow Piano Tuning", "Hebden Print Works", "Fernhill Nursery School",
)  # fmt: skip
_SMALL_SHOPS = (
    "Tesco",
    "Co-op",
    "Greggs",
    "Boots",
    "Pret",
    "Shell",
    "Amazon",
    "Deliveroo",
    "TfL",
    "Aldi",
)


def tsv(w: Writer, plant: bool) -> Table:
    r = w.rng
    n = r.randint(8, 26)
    big = r.randrange(n) if plant else -1
    merchant = w.choose(MERCHANTS) if plant else ""
    lines = ["date\tdescription\tcategory\tamount\tbalance"]
    value = ""
    for i in range(n):
        day = w.loose(lambda: f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}")
        if i == big:
            value = w.money(180, 4800)[0]
            lines.append(f"{day}\t{merchant.upper()}\thome\t-{value}\t{w.money(900, 9000)[0]}")
            continue
        amt = w.loose(lambda: f"{r.randint(2, 95)}.{r.randint(11, 99)}")
        cat = r.choice(("groceries", "transport", "eating out", "shopping", "fuel"))
        lines.append(
            f"{day}\t{r.choice(_SMALL_SHOPS).upper()}\t{cat}\t-{amt}\t{w.money(900, 9000)[0]}"
        )
    short = merchant.split()[0] if merchant else ""
    asks = (
        "Export last month's transactions from the joint account?",
        "What went out of the current account recently?",
        "Grab me the statement lines since the 1st.",
    )
    later = (
        f"That {short} payment, add it to the spreadsheet for the accountant under repairs.",
        f"The {short} one. Was that the deposit? Either way flag it for the tax return.",
        f"Can you set up a reminder to query the {short} charge with them on Monday?",
    )
    replies = (
        "Added under repairs.",
        "Flagged for the tax return.",
        "Reminder set for Monday morning.",
    )
    return Table(
        r.choice(asks), "bank_export", {"account": "joint", "format": "tsv"}, "\n".join(lines),
        value, (), "value", r.choice(later), r.choice(replies),
    )  # fmt: skip


ROLES = (
    ("Payroll", "the payroll person"), ("Facilities", "whoever does facilities"),
    ("IT support", "the IT support contact"), ("Health & safety", "the health and safety lead"),
    ("Reception", "whoever's on reception"), ("Expenses", "the expenses person"),
    ("Fire warden, floor 3", "the fire warden on three"), ("HR business partner", "our HR partner"),
    ("Travel desk", "the travel desk person"), ("Parking permits", "the parking permits contact"),
    ("Post room", "whoever runs the post room"), ("Learning & development", "the training person"),
)  # fmt: skip


def html(w: Writer, plant: bool) -> Table:
    r = w.rng
    roles = r.sample(ROLES, r.randint(5, 12))
    pick = r.randrange(len(roles)) if plant else -1
    cells = []
    value = ""
    for i, (role, _) in enumerate(roles):
        name = w.person()[0]
        if i == pick:
            value = name
        ext = str(r.randint(2000, 7999))
        cells.append(
            f"    <tr><td>{escape(name)}</td><td>{escape(role)}</td><td>{ext}</td>"
            f"<td>{r.choice(('G', '1', '2', '3'))}.{r.randint(1, 40):02d}</td></tr>"
        )
    text = (
        '<table class="directory">\n  <thead>\n    <tr><th>Name</th><th>Role</th>'
        "<th>Ext.</th><th>Room</th></tr>\n  </thead>\n  <tbody>\n"
        + "\n".join(cells)
        + "\n  </tbody>\n</table>"
    )
    words = roles[pick][1] if plant else ""
    asks = (
        "Who's who in the new office? The intranet has a contacts page.",
        "Pull up the staff contacts page for the Leeds site.",
        "Can you get me the office directory?",
    )
    later = (
        f"Draft an email to {words} asking where my P60 is.",
        f"Could you put a 15 minute call in with {words} for Thursday?",
        f"Send {words} a note saying I'll be in late tomorrow.",
    )
    replies = ("Drafted, it's waiting in your outbox.", "Invite sent.", "Sent.")
    return Table(
        r.choice(asks), "fetch_intranet", {"page": "contacts"}, text, value, (), "name",
        r.choice(later), r.choice(replies),
    )  # fmt: skip


APPLIANCES = (
    ("washing machine", "Bosch", "the washing machine"), ("dishwasher", "Miele", "the dishwasher"),
    ("fridge freezer", "Samsung", "the fridge"), ("boiler", "Worcester", "the boiler"),
    ("tumble dryer", "Beko", "the dryer"), ("oven", "Neff", "the oven"),
    ("television", "LG", "the telly"), ("laptop", "Lenovo", "the laptop"),
    ("vacuum", "Dyson", "the hoover"), ("lawnmower", "Mountfield", "the mower"),
)  # fmt: skip


def yaml_records(w: Writer, plant: bool) -> Table:
    r = w.rng
    items = r.sample(APPLIANCES, r.randint(5, len(APPLIANCES)))
    pick = r.randrange(len(items)) if plant else -1
    out = []
    value, aliases = "", tuple[str, ...]()
    for i, (item, brand, _) in enumerate(items):
        bought = w.loose(
            lambda: f"20{r.randint(19, 25)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"
        )
        until, other = w.date(style=2)
        if i == pick:
            value, aliases = until, other
        serial = w.fresh(lambda: (f"{r.choice('ABCDEFGHKM')}{r.randint(10**7, 10**8 - 1)}", ()))[0]
        out.append(
            f"- item: {item}\n  brand: {brand}\n  bought: {bought}\n  serial: {serial}\n"
            f"  warranty_until: {until}\n  receipt: {r.choice(('yes', 'no', 'email'))}"
        )
    words = items[pick][2] if plant else ""
    asks = (
        "What's in the warranties file again?",
        "Open appliances.yaml from the house folder.",
        "Can you read me the appliance warranty list?",
    )
    later = (
        f"{words.capitalize()} is leaking again. If it's still covered, book the engineer.",
        f"Is {words} still under warranty, going by that file? It's making a horrible noise.",
        f"ugh {words} died. Covered or not?",
    )
    replies = (
        "I'll look into the booking.",
        "Going by the file, I'll arrange it.",
        "Noted, I'll sort the call-out.",
    )
    return Table(
        r.choice(asks), "read_file", {"path": "house/appliances.yaml"}, "\n".join(out), value,
        aliases, "date", r.choice(later), r.choice(replies),
    )  # fmt: skip


def api_json(w: Writer, plant: bool) -> Table:
    r = w.rng
    n = r.randint(5, 14)
    pick = r.randrange(n) if plant else -1
    orders = []
    value, surname = "", ""
    for i, last in enumerate(r.sample(LAST, n)):
        first = r.choice(FIRST)
        tracking = w.fresh(
            lambda: (r.choice(("JD", "H0", "1Z")) + "".join(r.choices("0123456789", k=14)), ())
        )[0]
        if i == pick:
            value, surname = tracking, last
        orders.append(
            {
                "id": f"ord_{r.getrandbits(32):08x}",
                "created_at": f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T"
                f"{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:00Z",
                "customer": {
                    "name": f"{first} {last}",
                    "address": {"city": r.choice(TOWNS), "country": "GB"},
                },
                "items": [
                    {"sku": f"SKU-{r.randint(1000, 9999)}", "qty": r.randint(1, 4)}
                    for _ in range(r.randint(1, 3))
                ],
                "fulfilment": {
                    "carrier": r.choice(("DPD", "Evri", "Royal Mail", "UPS")),
                    "tracking": {
                        "number": tracking,
                        "status": r.choice(("in_transit", "label_created", "delivered")),
                    },
                },
            }
        )
    body = {"data": {"orders": orders}, "meta": {"page": 1, "per_page": 25, "total": n}}
    text = json.dumps(body, indent=r.choice((None, 2)))
    asks = (
        "What orders came through the shop this week?",
        "List the open orders from the shop API?",
        "Can you pull this week's orders?",
    )
    later = (
        f"The {surname} order, the customer says nothing's arrived. Chase the courier?",
        f"Mrs {surname} emailed asking where her parcel is, can you open a query with the carrier?",
        f"Send the {surname} customer their tracking link please.",
    )
    replies = (
        "Query opened with the carrier.",
        "Sent.",
        "Done, I've asked the courier for an update.",
    )
    return Table(
        r.choice(asks), "shop_api", {"endpoint": "/v2/orders", "status": "open"}, text, value,
        (), "code", r.choice(later), r.choice(replies),
    )  # fmt: skip


FORMATS: dict[str, Callable[[Writer, bool], Table]] = {
    "kubectl": kubectl,
    "df": df,
    "tsv": tsv,
    "html": html,
    "yaml": yaml_records,
    "json": api_json,
}
"""Format name -> a table of that format (planted or not)."""


def _table_turn(w: Writer, table: Table) -> int:
    w.say("user", table.ask)
    where = w.call(table.tool, table.args, table.text)
    w.say(
        "assistant",
        w.rng.choice(
            (
                "Here it is.",
                "Done, that's the lot.",
                "Got it, anything in there you need?",
                "Listed.",
            )
        ),
    )
    return where


def write(rng: random.Random, turns: int, facts: int) -> Writer:
    """``facts`` planted tables (the formats in turn), each pointed at 3-20 turns later."""
    w = Writer(rng, SYSTEM)
    plants = pick_turns(rng, turns - 22, facts, lo=4, gap=6)
    formats = [list(FORMATS)[i % len(FORMATS)] for i in range(facts)]
    rng.shuffle(formats)
    planted = dict(zip(plants, formats, strict=True))
    later: dict[int, Table] = {}
    for t in range(turns):
        w.begin()
        if t in planted:
            table = FORMATS[planted[t]](w, True)
            where = _table_turn(w, table)
            w.record(table.kind, table.value, table.aliases, t, where)
            at = t + rng.randint(3, 20)
            while at in later or at in planted:
                at += 1
            later[at] = table
        elif t in later:
            w.say("user", later[t].later)
            w.say("assistant", later[t].reply)
        elif rng.random() < 0.22:
            _table_turn(w, FORMATS[rng.choice(list(FORMATS))](w, False))
        else:
            w.chatter()
    return w
