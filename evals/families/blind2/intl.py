"""Names, dates and addresses from German, Spanish, Japanese (romanised) and Vietnamese.

Plants ``facts`` facts: people's names with their diacritics (``Jürgen Weißmüller``, ``María
José Núñez Iglesias``, ``Takahashi Yūko``, ``Nguyễn Thị Thu Hằng``), dates written the way
each language writes them (``14. März 2027``, ``14 de marzo de 2027``, ``2027年3月14日``,
``ngày 14 tháng 3 năm 2027``) and street lines (``Kastanienallee 12``, ``Calle de Embajadores
41``, ``2-14-7 Jingūmae``, ``18 Lê Thánh Tôn``), in English sentences or in that language's,
said by the user, read out by the assistant, or in an email a tool returns. A tenth (at least
1) are dates moved later ("Der Termin wurde auf den ... verschoben"), corrections whose
``stale`` is the first date. The chatter carries other names and streets from the same
languages. A summary may write a value another way: a date in English or ISO form, a name or
street without its diacritics (``ß`` as ``ss``), a Japanese name given name first; those are
the facts' aliases. Scored by the trajectories runner: kinds ``name``, ``date``, ``value``
(street lines) after 1, 3 and 10 reductions and at the end; the moved dates also in
``stale`` and ``stale only``.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import random
import unicodedata

from evals.families.blind2.base import MONTHS, Writer, pick_turns
from evals.families.facts import FactKind

__all__ = ["LOCALES", "fold", "write"]

LOCALES = ("de", "es", "ja", "vi")

FIRST = {
    "de": (
        "Jürgen",
        "Björn",
        "Jörg",
        "Käthe",
        "Dörte",
        "Günther",
        "Sönke",
        "Anneliese",
        "Ulrike",
        "Friederike",
        "Lüder",
        "Hannelore",
    ),
    "es": (
        "María José",
        "José Ángel",
        "Begoña",
        "Iñaki",
        "Ramón",
        "Lucía",
        "Sofía",
        "Jesús",
        "Inés",
        "Nuria",
        "Joaquín",
        "Ainhoa",
    ),
    "ja": (
        "Yūko",
        "Shōta",
        "Ryōsuke",
        "Kyōko",
        "Yūta",
        "Haruka",
        "Sōta",
        "Emi",
        "Kōhei",
        "Jun'ichi",
        "Shūji",
        "Natsuki",
    ),
    "vi": (
        "Thị Thu Hằng",
        "Văn Dũng",
        "Minh Thảo",
        "Đức Tuấn",
        "Ngọc Quỳnh",
        "Thị Phương",
        "Quốc Hiếu",
        "Thùy Trang",
        "Hữu Nghĩa",
        "Bảo Châu",
    ),
}
LAST = {
    "de": (
        "Weißmüller",
        "Schäfer",
        "Größmann",
        "Köhler",
        "Hößl",
        "Straßburger",
        "Bäumer",
        "Fürstenberg",
        "Oßwald",
        "Dürrenmatt",
        "Löffler",
        "Jäckel",
    ),
    "es": (
        "Núñez Iglesias",
        "Ibáñez Roldán",
        "Muñoz Peña",
        "Gómez de la Fuente",
        "Martín Sáez",
        "Castaño Ruiz",
        "Peñalver Díaz",
        "Cañizares",
        "Echeverría",
        "Ordóñez Gil",
    ),
    "ja": (
        "Takahashi",
        "Ōta",
        "Saitō",
        "Itō",
        "Katō",
        "Kōno",
        "Shimizu",
        "Yamaguchi",
        "Matsumoto",
        "Inoue",
        "Ōno",
        "Kondō",
    ),
    "vi": ("Nguyễn", "Trần", "Lê", "Phạm", "Hoàng", "Huỳnh", "Võ", "Đặng", "Bùi", "Đỗ"),
}
STREETS = {
    "de": (
        "Kastanienallee",
        "Schönhauser Allee",
        "Müllerstraße",
        "Görlitzer Straße",
        "Bötzowstraße",
        "Grüntaler Straße",
        "Fürther Straße",
        "Königsweg",
        "Rosenthaler Straße",
    ),
    "es": (
        "Calle de Embajadores",
        "Calle de Toledo",
        "Calle de Fuencarral",
        "Carrer de Sant Pere Més Alt",
        "Avenida de la Constitución",
        "Calle Peñuelas",
        "Calle del Almirante Cadarso",
    ),
    "ja": (
        "Jingūmae",
        "Kitazawa",
        "Ebisu-nishi",
        "Daikanyama-chō",
        "Nishi-Azabu",
        "Kōenji-minami",
        "Shirokanedai",
        "Yoyogi",
    ),
    "vi": (
        "Lê Thánh Tôn",
        "Hàng Bạc",
        "Phan Đình Phùng",
        "Đồng Khởi",
        "Hai Bà Trưng",
        "Lý Tự Trọng",
        "Nguyễn Thái Học",
        "Hàng Gai",
    ),
}
CITY = {
    "de": ("10435 Berlin", "80331 München", "20357 Hamburg", "50667 Köln"),
    "es": ("28012 Madrid", "08003 Barcelona", "41001 Sevilla", "46001 València"),
    "ja": (
        "Shibuya-ku, Tōkyō 150-0001",
        "Setagaya-ku, Tōkyō 155-0031",
        "Minato-ku, Tōkyō 106-0031",
    ),
    "vi": ("Phường Bến Nghé, Quận 1, TP. Hồ Chí Minh", "Hoàn Kiếm, Hà Nội", "Ba Đình, Hà Nội"),
}
DE_MONTHS = ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September",
             "Oktober", "November", "Dezember")  # fmt: skip
ES_MONTHS = ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre",
             "octubre", "noviembre", "diciembre")  # fmt: skip

SAY: dict[tuple[str, str], tuple[str, ...]] = {
    ("de", "name"): ("The new Hausverwaltung contact is {v}, everything in writing.",
                     "Mein Ansprechpartner beim Finanzamt ist {v}, Zimmer 214.",
                     "The tax adviser in Munich, {v}, sent the forms back at last."),
    ("de", "date"): ("The Bürgeramt appointment is on {v} at 9:40, don't let me forget.",
                     "Der Umzug ist am {v}, bitte im Kalender eintragen.",
                     "Kita starts {v} for the little one, the Eingewöhnung takes two weeks."),
    ("de", "value"): ("The new flat is {v}, {city}, Hinterhaus, 3. OG.",
                      "Bitte die Post ab sofort an {v}, {city} schicken."),
    ("es", "name"): ("The notary in Seville is {v}, the papers are due by Friday.",
                     "Mi contacto en la gestoría es {v}, pregunta en recepción.",
                     "{v} is covering for me while I'm in Madrid."),
    ("es", "date"): ("La cita en el consulado es el {v}, a las 10:15.",
                     "The lawyer wrote: firma de escrituras el {v}. So that's the date.",
                     "We land back on {v}, just in time for Semana Santa."),
    ("es", "value"): ("Our flat in Madrid is {v}, 3º B, {city}, the door code comes by SMS.",
                      "Envíalo a {v}, {city}, a nombre de mi hermana."),
    ("ja", "name"): ("Our host in Kyoto is {v}, who runs the machiya with family.",
                     "The meeting with {v} from the Osaka office moved online.",
                     "My Japanese teacher, {v}-sensei, wants the essay on Thursday."),
    ("ja", "date"): ("The ryokan confirmation says check-in {v} (土), from 15:00.",
                     "Email from the school: entrance ceremony on {v} (10:00 start).",
                     "Visa appointment: {v}, 9:30, bring the photos."),
    ("ja", "value"): ("The apartment is {v}, {city}, room 302.",
                      "Send the boxes to {v}, {city}, care of the building manager."),
    ("vi", "name"): ("The tailor in Hội An is {v}, who has my measurements.",
                     "Our contact at the Hanoi office is {v}, anh ấy speaks English.",
                     "{v} is the guide for the Hà Giang loop."),
    ("vi", "date"): ("Giấy mời: đám cưới vào {v} tại Sài Gòn. We have to go.",
                     "The visa letter says entry on {v}, single entry.",
                     "Lịch hẹn khám: {v}, 8 giờ sáng."),
    ("vi", "value"): ("The hotel is at {v}, {city}, right by the market.",
                      "Gửi hàng về {v}, {city} nhé."),
}  # fmt: skip
MOVED = {
    "de": ("Der Termin wurde auf den {v} verschoben.", "They've moved it, it's {v} now."),
    "es": ("La cita se ha cambiado al {v}.", "Change of date from the consulate: {v}."),
    "ja": ("They changed the date to {v} (the old one was a holiday).", "New date: {v}."),
    "vi": ("Lịch đã dời sang {v}.", "They moved it to {v}, same time."),
}
CHATTER = (
    "Had lunch at a little place on {street}, {person} recommended it.",
    "{person} sent photos from the trip, {count} of them, mostly food.",
    "Got a postcard from {person}. No idea how she got the address.",
    "The Spanish homework is killing me, {count} verbs to learn by {day}.",
    "Watched a film with subtitles, {person} was in it, very slow.",
)


def fold(text: str) -> str:
    """``text`` without diacritics (``ß`` as ``ss``, ``đ`` as ``d``)."""
    text = text.replace("ß", "ss").replace("đ", "d").replace("Đ", "D")
    parts = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize("NFC", "".join(c for c in parts if not unicodedata.combining(c)))


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _name(r: random.Random, loc: str) -> tuple[str, tuple[str, ...]]:
    first, last = r.choice(FIRST[loc]), r.choice(LAST[loc])
    value = _nfc(f"{last} {first}" if loc in ("ja", "vi") else f"{first} {last}")
    aliases = {fold(value)}
    if loc == "ja":
        aliases |= {_nfc(f"{first} {last}"), fold(f"{first} {last}")}
    if loc == "de":
        aliases.add(
            value.replace("ä", "ae").replace("ö", "oe").replace("ü", "ue").replace("ß", "ss")
        )
    aliases.discard(value)
    return value, tuple(sorted(aliases))


def _date(r: random.Random, loc: str) -> tuple[str, tuple[str, ...]]:
    day = datetime.date(r.randint(2026, 2028), r.randint(1, 12), r.randint(1, 28))
    d, m, y = day.day, day.month, day.year
    value = {
        "de": f"{d}. {DE_MONTHS[m - 1]} {y}",
        "es": f"{d} de {ES_MONTHS[m - 1]} de {y}",
        "ja": f"{y}年{m}月{d}日",
        "vi": f"ngày {d} tháng {m} năm {y}",
    }[loc]
    english = (f"{d} {MONTHS[m - 1]} {y}", f"{MONTHS[m - 1]} {d}, {y}", day.isoformat())
    return _nfc(value), english


def _street(r: random.Random, loc: str) -> tuple[str, tuple[str, ...]]:
    street = r.choice(STREETS[loc])
    if loc == "ja":
        value = f"{r.randint(1, 5)}-{r.randint(1, 30)}-{r.randint(1, 20)} {street}"
    elif loc == "vi":
        value = f"{r.randint(2, 220)} {street}"
    else:
        value = f"{street} {r.randint(2, 160)}"
    value = _nfc(value)
    folded = fold(value)
    return value, (() if folded == value else (folded,))


def _planted(w: Writer, loc: str, kind: str) -> tuple[str, tuple[str, ...]]:
    make = {"name": _name, "date": _date, "value": _street}[kind]
    return w.fresh(lambda: make(w.rng, loc))


def _loose_person(w: Writer) -> str:
    r = w.rng
    loc = r.choice(LOCALES)
    return w.loose(lambda: _name(r, loc)[0])


def _chatter(w: Writer) -> None:
    r = w.rng
    if r.random() < 0.35:
        text = r.choice(CHATTER)
        street = w.loose(lambda: _street(r, r.choice(LOCALES))[0])
        text = w.fill(text.replace("{street}", street).replace("{person}", _loose_person(w)))
        w.say("user", text)
        w.say(
            "assistant",
            w.fill(r.choice(("Sounds lovely.", "Ha! Noted.", "Nice. {pal} says hi too."))),
        )
    else:
        w.chatter()


def _state(w: Writer, loc: str, kind: str, value: str, frames: tuple[str, ...]) -> int:
    """Say ``value`` in one of ``frames``: by the user, read out by the assistant, in an email."""
    r = w.rng
    city = r.choice(CITY[loc])
    sentence = r.choice(frames).replace("{city}", city).replace("{v}", value)
    how = r.choices(("user", "assistant", "tool"), weights=(55, 15, 30))[0]
    if how == "user":
        where = w.say("user", sentence)
        w.say("assistant", r.choice(("Okay, saved.", "Got it.", "Added to your notes.", "Done.")))
    elif how == "assistant":
        w.say(
            "user",
            r.choice(("What did that letter say?", "Read me the message from this morning?")),
        )
        where = w.say("assistant", f"It says: \u201c{sentence}\u201d")
        w.say("user", r.choice(("ok thanks", "right", "ugh, fine")))
        w.say("assistant", "Anything else?")
    else:
        w.say("user", r.choice(("Any new email?", "Check the inbox?", "Did they write back?")))
        sender = _loose_person(w)
        subject = {"de": "Re: Termin", "es": "Re: cita", "ja": "Re: booking", "vi": "Re: hồ sơ"}[
            loc
        ]
        body = {"from": sender, "subject": subject, "body": sentence}
        where = w.call("search_email", {"unread": True}, json.dumps(body, ensure_ascii=False))
        w.say(
            "assistant", r.choice(("One new message; details above.", "They replied, see above."))
        )
    return where


def write(rng: random.Random, turns: int, facts: int) -> Writer:
    """``facts`` facts over 4 languages and 3 kinds; a tenth (>= 1) are dates moved later."""
    w = Writer(rng)
    moved = max(1, facts // 10)
    first = facts - moved
    combos = [(LOCALES[i % 4], ("name", "date", "value")[(i // 4) % 3]) for i in range(first)]
    rng.shuffle(combos)
    starts = pick_turns(rng, turns * 2 // 3, first, lo=2, gap=4)
    plan: dict[int, tuple[str, int]] = {t: ("say", i) for i, t in enumerate(starts)}
    dates = [i for i, (_, k) in enumerate(combos) if k == "date"]
    for i in rng.sample(dates, moved):
        at = starts[i] + rng.randint(15, 100)
        while at in plan:
            at += 1
        plan[at] = ("move", i)
    fact_of: dict[int, int] = {}
    for t in range(turns):
        w.begin()
        step = plan.get(t)
        if step is None:
            _chatter(w)
            continue
        what, i = step
        loc, kind = combos[i]
        value, aliases = _planted(w, loc, kind)
        frames = SAY[(loc, kind)] if what == "say" else MOVED[loc]
        where = _state(w, loc, kind, value, frames)
        fkind: FactKind = "name" if kind == "name" else ("date" if kind == "date" else "value")
        if what == "say":
            w.record(fkind, value, aliases, t, where)
        else:
            old = w.facts[fact_of[i]]
            w.facts[fact_of[i]] = dataclasses.replace(old, until=where)
            w.record(
                fkind, value, aliases, t, where, stale=old.value, stale_index=old.message_index
            )
        fact_of[i] = len(w.facts) - 1
    return w
