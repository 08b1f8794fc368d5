"""blind4-tables: tool output printed the way real tools print it, one row pointed at later.

A small web shop's owner has an assistant with a shell and a few exports. Tools answer in the
shapes people actually see: ``docker ps``, ``kubectl get pods -o wide``, ``df -h``, ``ls -l``, a
CSV export, an HTML table scraped from an admin page, JSON ``{"columns", "rows"}`` and a YAML
inventory. 2-12 turns after a planted table the user points at one row, by a cell of another
column ("the one on 8443"), by part of its name ("the thumbnailer") or by a description ("the
volume that's nearly full"), and asks for something; the fact is another cell of that row (a
container id, a pod IP, a device, a file size, an order id, an email, a tracking number, an IP),
which no other message says. Most other turns bring tables of the same shapes.
"""

from __future__ import annotations

import csv
import io
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from evals.families.blind4.base import Convo, Slots, build, spread
from evals.families.blind4.chatter import Fresh, chatter_turn
from evals.families.trajectories import Trajectory

__all__ = ["SHAPES", "Table", "generate"]

Row = dict[str, str]


@dataclass(frozen=True)
class Table:
    """A printed table, its rows as cells, which column is the fact and how rows are named."""

    shape: str
    text: str
    rows: list[Row]
    fact_column: str
    kind: str
    call: tuple[str, dict[str, str]]


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _ip(rng: random.Random) -> str:
    return f"10.{rng.randint(16, 250)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}"


def _version(rng: random.Random) -> str:
    return f"{rng.randint(1, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}"


def _public_ip(rng: random.Random) -> str:
    return (
        f"{rng.randint(5, 212)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}"
    )


def _pad(rows: list[list[str]], gap: int = 3) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(
        (" " * gap).join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    )


SERVICES = (
    "shop-web",
    "checkout-api",
    "thumbnailer",
    "invoice-worker",
    "search-indexer",
    "mailer",
    "redis-cache",
    "postgres-main",
    "stock-sync",
    "payments-webhook",
    "image-proxy",
    "cron-runner",
)
IMAGES = {
    "redis-cache": "redis:7.2-alpine",
    "postgres-main": "postgres:16.3",
    "image-proxy": "nginx:1.27",
}


def docker_ps(rng: random.Random, f: Fresh) -> Table:
    names = rng.sample(SERVICES, rng.randint(5, 8))
    rows: list[Row] = []
    ports = rng.sample(range(3000, 9900), len(names))
    for name, port in zip(names, ports, strict=True):
        created = rng.choice(("2 days ago", "3 weeks ago", "5 hours ago", "About an hour ago"))
        status = rng.choice(("Up 2 days", "Up 3 weeks", "Up 5 hours (healthy)", "Up 41 minutes"))
        rows.append(
            {
                "CONTAINER ID": _hex(rng, 12),
                "IMAGE": IMAGES.get(name, f"ghcr.io/larchwood/{name}:{_version(rng)}"),
                "COMMAND": rng.choice(('"docker-entrypoint.s…"', '"/app/run"', '"python -m app"')),
                "CREATED": created,
                "STATUS": status,
                "PORTS": f"0.0.0.0:{port}->{rng.choice((80, 8080, 5432, 6379, 443))}/tcp",
                "NAMES": f"larchwood-{name}-1",
            }
        )
    cols = list(rows[0])
    text = _pad([cols] + [[r[c] for c in cols] for r in rows])
    return Table("docker", text, rows, "CONTAINER ID", "code", ("shell", {"cmd": "docker ps"}))


def kubectl_pods(rng: random.Random, f: Fresh) -> Table:
    names = rng.sample(SERVICES, rng.randint(5, 8))
    bad = rng.randrange(len(names))
    rows: list[Row] = []
    for i, name in enumerate(names):
        rows.append(
            {
                "NAME": f"{name}-{_hex(rng, 9)}-{_hex(rng, 5)}",
                "READY": "0/1" if i == bad else "1/1",
                "STATUS": "CrashLoopBackOff" if i == bad else "Running",
                "RESTARTS": str(rng.randint(7, 40)) if i == bad else str(rng.randint(0, 2)),
                "AGE": rng.choice(("3d4h", "11h", "26d", "47m", "6d")),
                "IP": _ip(rng),
                "NODE": f"pool-a-{_hex(rng, 5)}",
                "NOMINATED NODE": "<none>",
                "READINESS GATES": "<none>",
            }
        )
    cols = list(rows[0])
    text = _pad([cols] + [[r[c] for c in cols] for r in rows])
    return Table(
        "kubectl", text, rows, "IP", "code", ("shell", {"cmd": "kubectl get pods -o wide -n shop"})
    )


MOUNTS = (
    "/",
    "/boot",
    "/srv/media",
    "/srv/backups",
    "/var/lib/docker",
    "/home",
    "/srv/exports",
    "/var/log",
)


def df_h(rng: random.Random, f: Fresh) -> Table:
    mounts = rng.sample(MOUNTS, rng.randint(5, 7))
    full = rng.randrange(len(mounts))
    rows: list[Row] = []
    for i, mount in enumerate(mounts):
        size = rng.choice((50, 100, 200, 458, 916, 1800))
        use = rng.randint(91, 98) if i == full else rng.randint(8, 74)
        used = size * use // 100
        rows.append(
            {
                "Filesystem": f"/dev/mapper/vg{rng.randint(0, 9)}-lv{_hex(rng, 4)}",
                "Size": f"{size}G",
                "Used": f"{used}G",
                "Avail": f"{size - used}G",
                "Use%": f"{use}%",
                "Mounted on": mount,
            }
        )
    cols = list(rows[0])
    text = _pad([cols] + [[r[c] for c in cols] for r in rows], gap=2)
    return Table("df", text, rows, "Filesystem", "code", ("shell", {"cmd": "df -h"}))


FILES = (
    ("orders", "csv.gz"),
    ("customers", "json"),
    ("stock", "xlsx"),
    ("refunds", "csv"),
    ("newsletter", "csv"),
    ("invoices", "zip"),
    ("reviews", "json"),
    ("returns", "csv"),
)
MON = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def ls_l(rng: random.Random, f: Fresh) -> Table:
    picks = rng.sample(FILES, rng.randint(5, 8))
    rows: list[Row] = []
    for stem, ext in picks:
        rows.append(
            {
                "perms": "-rw-r--r--",
                "links": "1",
                "owner": "deploy",
                "group": "deploy",
                "size": str(rng.randint(1_000_000, 99_999_999)),
                "date": f"{rng.choice(MON)} {rng.randint(1, 28):>2} "
                f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}",
                "name": f"{stem}-export-{rng.randint(2025, 2027)}.{ext}",
            }
        )
    lines = [f"total {rng.randint(40000, 400000)}"]
    width = max(len(r["size"]) for r in rows)
    for r in rows:
        lines.append(
            f"{r['perms']} {r['links']} {r['owner']} {r['group']} {r['size']:>{width}} "
            f"{r['date']} {r['name']}"
        )
    return Table(
        "ls", "\n".join(lines), rows, "size", "value", ("shell", {"cmd": "ls -l /srv/exports"})
    )


CUSTOMERS = (
    "Okafor",
    "Lindqvist",
    "Brennan",
    "Achterberg",
    "Mistry",
    "Fairbairn",
    "Castellanos",
    "Whitlock",
    "Oyelaran",
    "Pemberton",
    "Kowalczyk",
    "Trevithick",
)
CITIES = (
    "Truro",
    "Inverness",
    "Hull",
    "Dundee",
    "Exeter",
    "Carlisle",
    "Swansea",
    "Lincoln",
    "Derry",
    "Ipswich",
)


def csv_orders(rng: random.Random, f: Fresh) -> Table:
    names = rng.sample(CUSTOMERS, rng.randint(5, 9))
    cities = rng.sample(CITIES, len(names))
    rows = [
        {
            "order_id": f"SO-{rng.randint(100000, 999999)}",
            "customer": f"{f.name()[0]}. {n}",
            "city": c,
            "items": str(rng.randint(1, 6)),
            "total_gbp": f"{rng.randint(12, 640)}.{rng.randint(0, 99):02d}",
            "dispatch_by": f"2027-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        }
        for n, c in zip(names, cities, strict=True)
    ]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return Table(
        "csv",
        buf.getvalue().rstrip("\n"),
        rows,
        "order_id",
        "code",
        ("export_orders", {"status": "unshipped", "format": "csv"}),
    )


ROLES = (
    "returns desk",
    "packing bench",
    "customer emails",
    "click and collect",
    "goods-in",
    "social media",
    "wholesale accounts",
    "photography",
)
STAFF = (
    "Ifeoma Hart",
    "Gethin Lloyd",
    "Saoirse Kane",
    "Matteo Russo",
    "Priyanka Iyer",
    "Bartek Nowak",
    "Hollie Quinn",
    "Anders Berg",
    "Yusuf Demir",
    "Carys Pugh",
)


def html_rota(rng: random.Random, f: Fresh) -> Table:
    people = rng.sample(STAFF, rng.randint(5, 7))
    roles = rng.sample(ROLES, len(people))
    rows = []
    for person, role in zip(people, roles, strict=True):
        first, last = person.lower().split()
        rows.append(
            {
                "Name": person,
                "Role": role,
                "Shift": rng.choice(("06:00-14:00", "14:00-22:00", "22:00-06:00", "09:00-17:30")),
                "Ext": str(rng.randint(200, 899)),
                "Email": f"{first}.{last}{rng.randint(1, 99)}@larchwood.shop",
            }
        )
    head = "".join(f"<th>{c}</th>" for c in rows[0])
    body = "\n".join(
        "    <tr>" + "".join(f"<td>{v}</td>" for v in r.values()) + "</tr>" for r in rows
    )
    text = (
        '<table class="rota">\n  <thead><tr>'
        + head
        + "</tr></thead>\n  <tbody>\n"
        + body
        + "\n  </tbody>\n</table>"
    )
    return Table("html", text, rows, "Email", "code", ("fetch_admin_page", {"path": "/admin/rota"}))


def json_shipments(rng: random.Random, f: Fresh) -> Table:
    cities = rng.sample(CITIES, rng.randint(5, 8))
    rows = [
        {
            "tracking": f"{rng.choice(('JD', 'YT', 'RM', 'DP'))}{rng.randint(10**9, 10**10 - 1)}GB",
            "destination": c,
            "carrier": rng.choice(("DPD", "Royal Mail", "Evri", "Yodel")),
            "weight_kg": f"{rng.randint(0, 19)}.{rng.randint(0, 9)}",
            "eta": f"2027-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        }
        for c in cities
    ]
    text = json.dumps(
        {"columns": list(rows[0]), "rows": [list(r.values()) for r in rows], "count": len(rows)},
        indent=1,
    )
    return Table("json", text, rows, "tracking", "code", ("list_shipments", {"since": "yesterday"}))


REGIONS = ("Frankfurt", "London", "Amsterdam", "Helsinki", "Paris", "Warsaw", "Stockholm", "Dublin")


def yaml_hosts(rng: random.Random, f: Fresh) -> Table:
    regions = rng.sample(REGIONS, rng.randint(5, 7))
    rows = [
        {
            "name": ""
            f"{rng.choice(('app', 'db', 'edge', 'jobs'))}-{reg.lower()[:3]}-{rng.randint(1, 9)}",
            "region": reg,
            "ip": _public_ip(rng),
            "plan": rng.choice(("cx22", "cx32", "cpx41", "ccx23")),
            "monthly_eur": f"{rng.randint(4, 60)}.{rng.randint(0, 99):02d}",
        }
        for reg in regions
    ]
    lines = ["hosts:"]
    for r in rows:
        lines.append(f"  - name: {r['name']}")
        lines.extend(f"    {k}: {v}" for k, v in list(r.items())[1:])
    return Table(
        "yaml", "\n".join(lines), rows, "ip", "code", ("read_file", {"path": "infra/hosts.yaml"})
    )


SHAPES: dict[str, Callable[[random.Random, Fresh], Table]] = {
    "docker": docker_ps,
    "kubectl": kubectl_pods,
    "df": df_h,
    "ls": ls_l,
    "csv": csv_orders,
    "html": html_rota,
    "json": json_shipments,
    "yaml": yaml_hosts,
}

ASKS = {
    "docker": "What's running on the box right now?",
    "kubectl": "How are the pods in the shop namespace looking?",
    "df": "Are we OK for disk on the main server?",
    "ls": "What's in the exports folder?",
    "csv": "Pull me the unshipped orders.",
    "html": "Who's on the rota this week?",
    "json": "What went out since yesterday?",
    "yaml": "Remind me what hosts we're paying for.",
}
SUMMARIES = (
    "Here it is. Nothing looks alarming at a glance.",
    "That's the lot. One or two worth a look, but mostly fine.",
    "Printed above; happy to dig into any row.",
)


def _service(name: str) -> str:
    for s in SERVICES:
        if s in name:
            return s
    return name


def reference(rng: random.Random, table: Table, row: Row) -> str:
    """A user turn naming ``row`` by another cell, part of its name, or a description."""
    s = table.shape
    if s == "docker":
        if rng.random() < 0.5:
            port = row["PORTS"].split(":")[1].split("-")[0]
            return f"The container listening on {port}, can you keep an eye on it? It felt "
            "sluggish this morning."
        return f"That {_service(row['NAMES']).replace('-', ' ')} container is the one I want "
        "restarted tonight after close."
    if s == "kubectl":
        if row["STATUS"] == "CrashLoopBackOff" and rng.random() < 0.6:
            return (
                "The pod that keeps falling over, leave it alone for now, I've asked Nico to look."
            )
        return f"The {_service(row['NAME'])} pod, is that the one we scaled last week? Flag it "
        "for the review."
    if s == "df":
        if int(row["Use%"].rstrip("%")) > 90 and rng.random() < 0.6:
            return "The volume that's nearly full is the one to sort first. Put it on the list "
            "for Friday."
        return f"Whatever's mounted at {row['Mounted on']}, that's the one I want to resize "
        "next month."
    if s == "ls":
        stem = row["name"].split("-")[0]
        return f"The {stem} dump from that folder, I'll need to send that to the accountant. "
        "Hang on to it."
    if s == "csv":
        if rng.random() < 0.5:
            return f"The {row['city']} order needs to go first thing, they've chased twice."
        return (
            f"Hold the {row['customer'].split('. ')[1]} order until the payment clears, would you?"
        )
    if s == "html":
        return f"Whoever's on {row['Role']} this week, I need to send them the new returns form."
    if s == "json":
        return f"The parcel heading to {row['destination']}, the customer's asking where it is. "
        "Can you deal with it?"
    return f"The {row['region']} box, that's the one I want to cancel at the end of the month."


ANSWERS = (
    "Sure, I've made a note against that one and I'll come back to it.",
    "Okay, that one's flagged.",
    "Will do, I've got it on the list.",
    "No problem, I'll sort that row out.",
)


def _planted(convo: Convo, f: Fresh, shape: str, gap: int, slots: Slots) -> None:
    table = SHAPES[shape](convo.rng, f)
    row = convo.rng.choice(table.rows)
    convo.user(ASKS[shape])
    index = convo.call(table.call[0], table.call[1], table.text)
    convo.plant(table.kind, row[table.fact_column], index)
    convo.say(convo.rng.choice(SUMMARIES))

    def follow_up() -> None:
        convo.user(reference(convo.rng, table, row))
        convo.say(convo.rng.choice(ANSWERS))

    slots.later(gap, follow_up)


def _filler(convo: Convo, f: Fresh) -> None:
    if convo.rng.random() < 0.55:
        shape = convo.rng.choice(list(SHAPES))
        table = SHAPES[shape](convo.rng, f)
        convo.user(ASKS[shape])
        convo.call(table.call[0], table.call[1], table.text)
        convo.say(convo.rng.choice(SUMMARIES))
    else:
        chatter_turn(convo, f)


def write(convo: Convo, turns: int, facts: int) -> None:
    f = Fresh(convo.rng)
    convo.system(
        "You are the operations assistant for Larchwood, a small online homeware shop. You have "
        "a shell on the shop's server and read access to its exports and admin pages."
    )
    slots = Slots(turns)
    shapes = list(SHAPES)
    convo.rng.shuffle(shapes)
    for i, at in enumerate(spread(convo.rng, facts, turns, end=0.85)):
        shape = shapes[i % len(shapes)]
        gap = convo.rng.randint(2, 12)
        slots.put(at, partial(_planted, convo, f, shape, gap, slots))
    slots.run(lambda: _filler(convo, f))


def generate(seed: int, *, turns: int = 300, facts: int = 20) -> Trajectory:
    """The ``blind4-tables`` conversation for ``seed``."""
    return build(
        "b4-tables", seed, lambda c: write(c, turns, facts), {"turns": turns, "facts": facts}
    )
