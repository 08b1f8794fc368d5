# ruff: noqa: RUF001 - names and dates in Cyrillic, Persian and Japanese script
"""``b12-intl``: a homeware shop's makers and freight agents in Thailand, Japan, Ukraine, Iran.

Four suppliers a seed (silk from Chiang Mai, ceramics from Mino, embroidered linen from
Poltava, block-printed cloth from Isfahan), each with a maker's contact, a freight agent, a
dispatch date and an arrival date. Names in Thai script, in Japanese kanji (family name first),
in Ukrainian Cyrillic and in Persian script, each with its romanised form as an alias (both
orders for Japanese). Dates in each language's own calendar or form: Thai with the Buddhist-era
year (``14 มีนาคม 2570``, sometimes in Thai digits), Japanese with the Reiwa era year
(``令和9年3月14日``), Ukrainian with the genitive month (``14 березня 2027``), and Persian in
the Solar Hijri calendar (``۲۳ خرداد ۱۴۰۶``, sometimes in Western digits); aliases are the
English day-month-year and month-day-year forms (and ``2027年3月14日`` for Japanese). A value
is said in the owner's English sentence or in a supplier's email in its own language, found by
``search_email``; some are replaced 40 or more turns later (a new contact, a moved date).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable

from evals.families.blind6.base import build, timeline
from evals.families.blind12.base import Writer12, writer
from evals.families.pools import MONTHS
from evals.families.trajectories import Trajectory

__all__ = ["LANGS", "NAMES", "generate", "native_date", "solar_hijri"]

LANGS = ("th", "ja", "uk", "fa")
PLACES = {"th": "Chiang Mai", "ja": "Mino", "uk": "Poltava", "fa": "Isfahan"}
GOODS = {"th": "silk", "ja": "ceramics", "uk": "linen", "fa": "block prints"}

NAMES: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "th": (
        ("สมชาย ใจดี", ("Somchai Jaidee",)),
        ("นภา ศรีสุข", ("Napa Srisuk",)),
        ("วิชัย ทองดี", ("Wichai Thongdee",)),
        ("ปรียา วงศ์สวัสดิ์", ("Preeya Wongsawat",)),
        ("อนันต์ บุญมา", ("Anan Boonma",)),
        ("กมล แสงทอง", ("Kamon Saengthong",)),
        ("สุดา มณีรัตน์", ("Suda Maneerat",)),
        ("ธนา พรหมมา", ("Thana Phromma",)),
    ),
    "ja": (
        ("佐藤美咲", ("Misaki Sato", "Sato Misaki")),
        ("高橋健太", ("Kenta Takahashi", "Takahashi Kenta")),
        ("渡辺由美", ("Yumi Watanabe", "Watanabe Yumi")),
        ("小林大輔", ("Daisuke Kobayashi", "Kobayashi Daisuke")),
        ("加藤恵", ("Megumi Kato", "Kato Megumi")),
        ("山本拓海", ("Takumi Yamamoto", "Yamamoto Takumi")),
        ("松本さくら", ("Sakura Matsumoto", "Matsumoto Sakura")),
        ("吉田浩二", ("Koji Yoshida", "Yoshida Koji")),
    ),
    "uk": (
        ("Оксана Коваленко", ("Oksana Kovalenko",)),
        ("Тарас Шевчук", ("Taras Shevchuk",)),
        ("Ірина Бондаренко", ("Iryna Bondarenko",)),
        ("Богдан Мельник", ("Bohdan Melnyk",)),
        ("Галина Ткаченко", ("Halyna Tkachenko",)),
        ("Юрій Кравчук", ("Yurii Kravchuk",)),
        ("Наталія Олійник", ("Nataliia Oliinyk",)),
        ("Андрій Савченко", ("Andrii Savchenko",)),
    ),
    "fa": (
        ("مریم رضایی", ("Maryam Rezaei",)),
        ("علی محمدی", ("Ali Mohammadi",)),
        ("زهرا حسینی", ("Zahra Hosseini",)),
        ("رضا کریمی", ("Reza Karimi",)),
        ("فاطمه احمدی", ("Fatemeh Ahmadi",)),
        ("مهدی موسوی", ("Mehdi Mousavi",)),
        ("سارا جعفری", ("Sara Jafari",)),
        ("امیر صادقی", ("Amir Sadeghi",)),
    ),
}
"""Each language's people: ``(as written, romanised forms)``."""

TH_MONTHS = (
    "มกราคม", "กุมภาพันธ์", "มีนาคม", "เมษายน", "พฤษภาคม", "มิถุนายน",
    "กรกฎาคม", "สิงหาคม", "กันยายน", "ตุลาคม", "พฤศจิกายน", "ธันวาคม",
)  # fmt: skip
UK_MONTHS = (
    "січня", "лютого", "березня", "квітня", "травня", "червня",
    "липня", "серпня", "вересня", "жовтня", "листопада", "грудня",
)  # fmt: skip
FA_MONTHS = (
    "فروردین", "اردیبهشت", "خرداد", "تیر", "مرداد", "شهریور",
    "مهر", "آبان", "آذر", "دی", "بهمن", "اسفند",
)  # fmt: skip
_TH_DIGITS = str.maketrans("0123456789", "๐๑๒๓๔๕๖๗๘๙")
_FA_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")


def solar_hijri(day: datetime.date) -> tuple[int, int, int]:
    """``(year, month, day)`` in the Solar Hijri calendar, for a day from 21 March 2027 on.

    1 Farvardin 1406 is 21 March 2027 (the equinox falls after noon in Tehran on the 20th);
    the first six months have 31 days, the next five 30.
    """
    n = (day - datetime.date(2027, 3, 21)).days
    if not 0 <= n < 336:
        raise ValueError(f"{day} is outside Farvardin-Bahman 1406")
    for month, length in enumerate([31] * 6 + [30] * 5, start=1):
        if n < length:
            return 1406, month, n + 1
        n -= length
    raise AssertionError("unreachable")  # pragma: no cover


def native_date(lang: str, day: int, month: int, digits: bool = False) -> str:
    """A day of 2027 as ``lang`` writes it; ``digits``: in Thai digits, or Western for Persian."""
    if lang == "th":
        text = f"{day} {TH_MONTHS[month - 1]} {2027 + 543}"
        return text.translate(_TH_DIGITS) if digits else text
    if lang == "ja":
        return f"令和9年{month}月{day}日"
    if lang == "uk":
        return f"{day} {UK_MONTHS[month - 1]} 2027"
    y, m, d = solar_hijri(datetime.date(2027, month, day))
    text = f"{d} {FA_MONTHS[m - 1]} {y}"
    return text if digits else text.translate(_FA_DIGITS)


SLOTS = ("contact", "agent", "dispatch", "arrival")
LABELS = {
    "th": ("ผู้ติดต่อ", "ตัวแทนขนส่ง", "วันส่งสินค้า", "วันที่สินค้าถึง"),
    "ja": ("担当者", "輸送代理店", "発送日", "到着予定日"),
    "uk": ("Контактна особа", "Експедитор", "Дата відправлення", "Дата прибуття"),
    "fa": ("مسئول تماس", "نماینده حمل", "تاریخ ارسال", "تاریخ رسیدن"),
}
CHANGED = {"th": "(เปลี่ยนแปลง)", "ja": "（変更）", "uk": "(змінено)", "fa": "(تغییر)"}
EMAIL = {
    "th": ("เรียน ลูกค้า\n{l}: {v}{c}\nขอบคุณค่ะ", "สวัสดีค่ะ\n{l}: {v}{c}\nด้วยความเคารพ"),
    "ja": ("いつもお世話になっております。\n{l}: {v}{c}\nよろしくお願いいたします。",),
    "uk": ("Добрий день!\n{l}: {v}{c}\nЗ повагою", "Вітаємо!\n{l}: {v}{c}\nДякуємо"),
    "fa": ("سلام،\n{l}: {v}{c}\nبا احترام", "با سلام و احترام\n{l}: {v}{c}\nممنون"),
}
SAY = {
    "contact": ("the {p} {g} maker's contact is {v}", "we deal with {v} at the {p} workshop"),
    "agent": ("the freight agent for the {p} {g} is {v}", "{v} is handling shipping from {p}"),
    "dispatch": ("the {p} {g} ships on {v}", "{p} order goes out {v}"),
    "arrival": ("the {p} {g} should land {v}", "{p} delivery due {v}"),
}
RESAY = {
    "contact": ("new contact at {p}, it's {v} now", "the {p} workshop switched us to {v}"),
    "agent": ("{p} changed freight agent, now {v}", "shipping from {p} is with {v} now"),
    "dispatch": ("the {p} {g} dispatch moved to {v}", "{p} pushed the shipping back to {v}"),
    "arrival": ("{p} arrival moved to {v}", "the {p} {g} now lands {v}"),
}

SYSTEM = "You help the owner of a small homeware shop that imports from makers abroad."


def _call(
    say: Callable[[str, str, dict[str, object], bool], None],
    lang: str,
    slot: str,
    held: dict[str, object],
    again: bool,
) -> Callable[[], None]:
    def go() -> None:
        say(lang, slot, held, again)

    return go


def _write(w: Writer12, turns: int, facts: int) -> None:
    r = w.rng
    replaced = facts // 4
    stated = facts - replaced
    slots = r.sample([(lang, s) for lang in LANGS for s in SLOTS], stated)
    names = {lang: list(r.sample(NAMES[lang], len(NAMES[lang]))) for lang in LANGS}

    def value(lang: str, slot: str) -> tuple[str, tuple[str, ...]]:
        if slot in ("contact", "agent"):
            name, romanised = names[lang].pop()
            return name, romanised

        def make() -> str:
            return f"{r.randint(1, 28)}/{r.randint(4, 12)}"

        d, m = map(int, w.fresh(make).split("/"))
        english: tuple[str, ...] = (f"{d} {MONTHS[m - 1]} 2027", f"{MONTHS[m - 1]} {d}, 2027")
        if lang == "ja":
            english = (*english, f"2027年{m}月{d}日")
        return native_date(lang, d, m, digits=r.random() < 0.35), english

    def say(lang: str, slot: str, held: dict[str, object], again: bool) -> None:
        v, aliases = value(lang, slot)
        p, g = PLACES[lang], GOODS[lang]
        if r.random() < 0.5:
            label = LABELS[lang][SLOTS.index(slot)]
            mark = f" {CHANGED[lang]}" if again else ""
            text = (
                r.choice(EMAIL[lang]).replace("{l}", label).replace("{v}", v).replace("{c}", mark)
            )
            w.user(
                r.choice(
                    (
                        f"anything from {p} in my email?",
                        f"check the {p} emails",
                        f"did {p} write back?",
                    )
                )
            )
            at = w.tool(
                "search_email", {"query": p}, text, lead=r.choice((None, "Checking your inbox."))
            )
            w.say("assistant", "There's a reply from them.")
        else:
            shown = v
            if slot in ("contact", "agent") and r.random() < 0.4:
                shown = f"{v} ({aliases[0]})"
            pool = RESAY if again else SAY
            text = r.choice(pool[slot]).replace("{p}", p).replace("{g}", g).replace("{v}", shown)
            at = w.user(text)
            w.say(
                "assistant", r.choice(("Noted.", "Got it, I'll keep that with the order.", "Okay."))
            )
        prev = held.get("fact")
        if prev is None:
            held["fact"] = w.plant(
                "name" if slot in ("contact", "agent") else "date", v, at, aliases=aliases
            )
        else:
            assert isinstance(prev, type(w.facts[0]))
            held["fact"] = w.plant(
                "name" if slot in ("contact", "agent") else "date", v, at, aliases=aliases,
                stale=prev.value, stale_index=prev.message_index,
            )  # fmt: skip
            w.supersede(prev, at)

    events: list[tuple[int, Callable[[], None]]] = []
    starts = sorted(r.sample(range(1, max(stated + 1, turns // 2)), stated))
    again = set(r.sample(range(stated), replaced))
    for k, ((lang, slot), start) in enumerate(zip(slots, starts, strict=True)):
        held: dict[str, object] = {}
        events.append((start, _call(say, lang, slot, held, False)))
        if k in again:
            later = min(turns - 3, start + r.randint(45, 200))
            events.append((later, _call(say, lang, slot, held, True)))
    timeline(w, turns, events)


def generate(seed: int, *, turns: int = 430, facts: int = 20) -> Trajectory:
    """One ``b12-intl`` conversation: ``facts`` names and dates over ``turns`` turns."""
    return build(
        seed, "b12-intl", turns, facts, _write, SYSTEM, writer=writer("importer"), prefix="blind12"
    )
