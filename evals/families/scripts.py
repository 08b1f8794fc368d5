# ruff: noqa: RUF001 - names, dates and amounts in Cyrillic, Greek, Hebrew and other scripts
"""``scripts-intl``: contacts, dates and amounts written in non-Latin scripts, some replaced.

An own family (not held out; written with the summarizer in view, round 13) for names, dates
and numbers that are not written in the Latin alphabet or with ASCII digits: Cyrillic
(Ukrainian, Russian), Persian in Arabic script with Persian digits, Arabic with Arabic-Indic
digits, Hindi in Devanagari with its digits, Thai with Thai digits and Buddhist-era years,
Japanese and Chinese with 年月日 (and a Japanese era), Korean in Hangul, Greek and Hebrew.
A supplier's contact, a delivery date or a quote is stated once, by the user, the assistant or
in a forwarded email, in an English sentence or a short sentence of that language; about half
are replaced later by the user (a new contact, a date moved, a new quote), in the same script,
in English or in the language ("the 21st" for a date said in full). Each value stands between
spaces or ASCII punctuation (as the evals' containment check reads words). Filler is a shop's
everyday traffic with other values in the same scripts; no planted value appears twice.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evals.families.facts import FactKind, PlantedFact
from evals.families.trajectories import Trajectory

__all__ = ["GENERATORS", "scripts_trajectory"]

_LATIN = "0123456789"
_DIGITS = {
    "latin": _LATIN,
    "persian": "۰۱۲۳۴۵۶۷۸۹",
    "arabic": "٠١٢٣٤٥٦٧٨٩",
    "devanagari": "०१२३४५६७८९",
    "thai": "๐๑๒๓๔๕๖๗๘๙",
}


def _digits(n: int | str, system: str) -> str:
    return str(n).translate(str.maketrans(_LATIN, _DIGITS[system]))


@dataclass(frozen=True)
class _Lang:
    """One language: its city, names, how it writes a date and an amount, its frames."""

    key: str
    city: str
    names: tuple[str, ...]
    date: Callable[[random.Random], tuple[str, int]]  # (date text, day of month)
    amount: Callable[[random.Random], str]
    said_name: str  # a sentence in the language, {v} the name
    said_date: str
    said_amount: str
    fixed: str  # a correction in the language, {v} the new value


def _ukrainian_date(rng: random.Random) -> tuple[str, int]:
    months = ("січня", "лютого", "березня", "квітня", "травня", "червня", "липня", "серпня")
    day = rng.randint(2, 28)
    return f"{day} {rng.choice(months)} {rng.choice((2026, 2027))}", day


def _russian_date(rng: random.Random) -> tuple[str, int]:
    months = ("января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа")
    day = rng.randint(2, 28)
    return f"{day} {rng.choice(months)} {rng.choice((2026, 2027))}", day


def _persian_date(rng: random.Random) -> tuple[str, int]:
    months = ("فروردین", "اردیبهشت", "خرداد", "تیر", "مرداد", "شهریور", "مهر", "آبان")
    day = rng.randint(2, 29)
    return f"{_digits(day, 'persian')} {rng.choice(months)} {_digits(1406, 'persian')}", day


def _arabic_date(rng: random.Random) -> tuple[str, int]:
    months = ("كانون الثاني", "شباط", "آذار", "نيسان", "أيار", "حزيران", "تموز", "أيلول")
    day = rng.randint(2, 28)
    return f"{_digits(day, 'arabic')} {rng.choice(months)} {_digits(2027, 'arabic')}", day


def _hindi_date(rng: random.Random) -> tuple[str, int]:
    months = ("जनवरी", "फ़रवरी", "मार्च", "अप्रैल", "मई", "जून", "जुलाई", "अगस्त")
    day = rng.randint(2, 28)
    return f"{_digits(day, 'devanagari')} {rng.choice(months)} {_digits(2027, 'devanagari')}", day


def _thai_date(rng: random.Random) -> tuple[str, int]:
    months = ("มกราคม", "กุมภาพันธ์", "มีนาคม", "เมษายน", "พฤษภาคม", "มิถุนายน", "กรกฎาคม")
    day = rng.randint(2, 28)
    if rng.random() < 0.5:
        return f"{_digits(day, 'thai')} {rng.choice(months)} {_digits(2570, 'thai')}", day
    return f"{day} {rng.choice(months)} 2570", day


def _japanese_date(rng: random.Random) -> tuple[str, int]:
    day, month = rng.randint(2, 28), rng.randint(1, 12)
    if rng.random() < 0.5:
        return f"令和9年{month}月{day}日", day
    return f"2027年{month}月{day}日", day


def _chinese_date(rng: random.Random) -> tuple[str, int]:
    day, month = rng.randint(2, 28), rng.randint(1, 12)
    return f"2027年{month}月{day}日", day


def _korean_date(rng: random.Random) -> tuple[str, int]:
    day, month = rng.randint(2, 28), rng.randint(1, 12)
    return f"2027년 {month}월 {day}일", day


def _greek_date(rng: random.Random) -> tuple[str, int]:
    months = ("Ιανουαρίου", "Φεβρουαρίου", "Μαρτίου", "Απριλίου", "Μαΐου", "Ιουνίου", "Ιουλίου")
    day = rng.randint(2, 28)
    return f"{day} {rng.choice(months)} 2027", day


def _hebrew_date(rng: random.Random) -> tuple[str, int]:
    months = ("בינואר", "בפברואר", "במרץ", "באפריל", "במאי", "ביוני", "ביולי")
    day = rng.randint(2, 28)
    return f"{day} {rng.choice(months)} 2027", day


def _amount(system: str, unit: str, *, before: bool = False) -> Callable[[random.Random], str]:
    def make(rng: random.Random) -> str:
        n = rng.randint(11, 98) * 100 + rng.choice((0, 50))
        text = _digits(f"{n:,}", system) if system != "latin" else f"{n:,}"
        return f"{unit}{text}" if before else f"{text} {unit}"

    return make


_LANGS: tuple[_Lang, ...] = (
    _Lang(
        "uk",
        "Kyiv",
        ("Олена Коваленко", "Тарас Шевчук", "Ірина Бондар", "Богдан Мельник", "Оксана Ткач"),
        _ukrainian_date,
        _amount("latin", "грн"),
        "Контакт у Києві: {v} , телефон у листі.",
        "Відвантаження заплановано на {v} , без змін.",
        "Ціна за партію: {v} , з доставкою.",
        "Виправлення: тепер {v} .",
    ),
    _Lang(
        "ru",
        "Almaty",
        ("Дмитрий Соколов", "Анна Кузнецова", "Сергей Волков", "Мария Лебедева", "Павел Орлов"),
        _russian_date,
        _amount("latin", "₸"),
        "Наш контакт в Алматы: {v} , пишите ему.",
        "Поставка назначена на {v} , склад предупреждён.",
        "Счёт на {v} , оплата по факту.",
        "Поправка: теперь {v} .",
    ),
    _Lang(
        "fa",
        "Tehran",
        ("مریم رضایی", "علی محمدی", "سارا احمدی", "رضا کریمی", "نگار حسینی"),
        _persian_date,
        _amount("persian", "تومان"),
        "نماینده ما در تهران {v} است .",
        "تحویل در تاریخ {v} انجام می‌شود .",
        "قیمت نهایی {v} است .",
        "اصلاح: حالا {v} است .",
    ),
    _Lang(
        "ar",
        "Amman",
        ("خالد العمري", "ليلى حداد", "يوسف النجار", "رنا الخطيب", "سامي عبيدات"),
        _arabic_date,
        _amount("arabic", "دينار"),
        "مسؤول الحساب في عمّان هو {v} .",
        "موعد الشحن {v} حسب الاتفاق .",
        "عرض السعر {v} شامل التوصيل .",
        "تصحيح: الآن {v} .",
    ),
    _Lang(
        "hi",
        "Pune",
        ("राजेश कुमार", "प्रिया शर्मा", "अमित वर्मा", "सुनीता पाटिल", "विकास जोशी"),
        _hindi_date,
        _amount("devanagari", "₹", before=True),
        "पुणे में हमारे संपर्क {v} हैं ।",
        "माल की डिलीवरी {v} को होगी ।",
        "कुल कीमत {v} है ।",
        "सुधार: अब {v} है ।",
    ),
    _Lang(
        "th",
        "Chiang Mai",
        ("สมชาย ใจดี", "นิภา ศรีสุข", "ประเสริฐ วงศ์ไทย", "กนกวรรณ แก้วมณี", "วีระ ทองคำ"),
        _thai_date,
        _amount("thai", "บาท"),
        "ผู้ประสานงานที่เชียงใหม่คือ {v} ครับ",
        "กำหนดส่งสินค้าวันที่ {v} ครับ",
        "ราคารวมทั้งหมด {v} ครับ",
        "แก้ไขเป็น {v} ครับ",
    ),
    _Lang(
        "ja",
        "Osaka",
        ("山田太郎", "佐藤花子", "鈴木一郎", "高橋美咲", "田中健"),
        _japanese_date,
        _amount("latin", "円"),
        "大阪の担当者は {v} さんです。",
        "納品日は {v} です。",
        "見積もりは {v} です。",
        "訂正: {v} に変更です。",
    ),
    _Lang(
        "zh",
        "Shenzhen",
        ("王小明", "李晓红", "陈建国", "刘芳", "张伟"),
        _chinese_date,
        _amount("latin", "元"),
        "深圳的联系人是 {v} ,有事找他。",
        "发货日期是 {v} ,已确认。",
        "报价是 {v} ,含运费。",
        "更正: 改为 {v} 。",
    ),
    _Lang(
        "ko",
        "Busan",
        ("김민준", "이서연", "박지훈", "최수아", "정우진"),
        _korean_date,
        _amount("latin", "원"),
        "부산 담당자는 {v} 님입니다.",
        "출고일은 {v} 입니다.",
        "견적 금액은 {v} 입니다.",
        "정정: {v} 으로 변경합니다.",
    ),
    _Lang(
        "el",
        "Thessaloniki",
        ("Γιώργος Παπαδόπουλος", "Ελένη Νικολάου", "Νίκος Γεωργίου", "Μαρία Δημητρίου"),
        _greek_date,
        _amount("latin", "€"),
        "Η επαφή μας στη Θεσσαλονίκη είναι ο/η {v} .",
        "Η αποστολή είναι για τις {v} .",
        "Η προσφορά είναι {v} .",
        "Διόρθωση: τώρα {v} .",
    ),
    _Lang(
        "he",
        "Haifa",
        ("דוד כהן", "מיכל לוי", "יוסי מזרחי", "נועה פרץ", "אבי ביטון"),
        _hebrew_date,
        _amount("latin", "₪"),
        "איש הקשר בחיפה הוא {v} .",
        "המשלוח מתוכנן ל {v} .",
        "הצעת המחיר היא {v} .",
        "תיקון: עכשיו {v} .",
    ),
)

_KINDS = ("name", "date", "amount")
_SUBJECT = {"name": "contact", "date": "delivery date", "amount": "quote"}
_ENGLISH: dict[str, tuple[str, ...]] = {
    "name": (
        "Our contact at the {c} supplier is {v} .",
        "For {c}, please deal with {v} from now on.",
        "The {c} account manager is {v} .",
    ),
    "date": (
        "The {c} shipment is due on {v} .",
        "The {c} order leaves the warehouse on {v} .",
    ),
    "amount": (
        "The {c} supplier quoted {v} for the batch.",
        "The {c} invoice comes to {v} .",
    ),
}
_FIXED_EN: dict[str, tuple[str, ...]] = {
    "name": (
        "Change at {c}: the contact is now {v} .",
        "Sorry, the {c} contact changed, it is {v} now.",
    ),
    "date": (
        "The {c} shipment moved to {v} .",
        "Update: the {c} delivery is now {v} .",
    ),
    "amount": (
        "The {c} quote went up to {v} .",
        "Correction, the {c} supplier now quotes {v} .",
    ),
}
_ORDINAL = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}
_FILLER_USER = (
    "Can you check the stock count for the {c} shelf?",
    "How many parcels went out to {c} yesterday?",
    "Is the printer on the second floor working again?",
    "Could you draft a short thank-you note for the {c} team?",
    "Which boxes should we use for the fragile items going to {c}?",
)
_FILLER_ASSISTANT = (
    "The {c} shelf shows {k} units, last counted on {d} .",
    "{k} parcels went to {c} , the last one handed over at {t} .",
    "Yes, it printed {k} pages this morning without a jam.",
    "Here is a draft: thank you for the quick turnaround on the {c} order, see you on {d} .",
    "Use the double-wall boxes; {k} are left in the store room.",
)


def scripts_trajectory(seed: int, *, turns: int = 300, facts: int = 20) -> Trajectory:
    """A conversation of ``turns`` user turns with ``facts`` planted non-Latin values."""
    rng = random.Random(seed)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are the assistant of a small import shop."}
    ]
    starts: list[int] = []
    planted: list[PlantedFact] = []
    used: set[str] = set()
    slots = [(lang, kind) for lang in _LANGS for kind in _KINDS]
    rng.shuffle(slots)
    slots = slots[:facts]
    gap = max(4, turns // (facts + 2))
    plan = sorted(rng.sample(range(2, turns - 2 * gap), facts))
    pending: list[tuple[int, _Lang, str, str, int, int, str]] = []  # fix turn, lang, ...
    turn = 0
    stated = 0

    def say(role: str, content: str) -> int:
        if role == "user":
            starts.append(len(messages))
        messages.append({"role": role, "content": content})
        return len(messages) - 1

    def fresh(lang: _Lang, kind: str) -> tuple[str, int]:
        while True:
            if kind == "name":
                value, day = rng.choice(lang.names), 0
            elif kind == "date":
                value, day = lang.date(rng)
            else:
                value, day = lang.amount(rng), 0
            if value not in used:
                used.add(value)
                return value, day

    def filler() -> None:
        lang = rng.choice(_LANGS)
        date, _ = lang.date(rng)
        fill = {
            "c": lang.city,
            "k": str(rng.randint(12, 97)),
            "t": f"{rng.randint(7, 19)}:{rng.choice(('05', '25', '35', '55'))}",
            "d": date if date not in used else "Friday",
        }
        used.add(date)
        say("user", rng.choice(_FILLER_USER).format(**fill))
        say("assistant", rng.choice(_FILLER_ASSISTANT).format(**fill))

    while turn < turns:
        if pending and pending[0][0] <= turn:
            _, lang, kind, old, day, stale_at, who = pending.pop(0)
            new, new_day = fresh(lang, kind)
            form = rng.random()
            value = new
            if kind == "date" and form < 0.25 and new_day != day and new_day not in (11, 12, 13):
                value = f"{new_day}{_ORDINAL.get(new_day, 'th')}"
                text = f"Actually the {lang.city} delivery moves to the {value} , same month."
            elif form < 0.6:
                text = rng.choice(_FIXED_EN[kind]).format(c=lang.city, v=new)
            else:
                text = lang.fixed.format(v=new)
            at = say("user", text)
            say("assistant", "Noted, I have updated it.")
            planted.append(
                PlantedFact(
                    f"f{len(planted):02d}",
                    "correction",
                    value,
                    turn,
                    at,
                    "user",
                    stale=old,
                    stale_index=stale_at,
                )
            )
            turn += 1
            continue
        if plan and turn >= plan[0]:
            plan.pop(0)
            lang, kind = slots[stated]
            stated += 1
            old, day = fresh(lang, kind)
            native = rng.random() < 0.5
            frame = (
                {"name": lang.said_name, "date": lang.said_date, "amount": lang.said_amount}[kind]
                if native
                else rng.choice(_ENGLISH[kind])
            )
            text = frame.format(c=lang.city, v=old)
            who = rng.choice(("user", "assistant", "email"))
            if who == "user":
                at = say("user", text)
                say("assistant", "Thanks, I have saved that.")
            elif who == "assistant":
                say("user", f"What did we agree with {lang.city} about the {_SUBJECT[kind]}?")
                at = say("assistant", text)
            else:
                at = say(
                    "user",
                    f"Forwarding the email from {lang.city}:\n> {text}\n> Best regards",
                )
                say("assistant", "Got it, I will keep that in mind.")
            turn += 1
            fact_kind: FactKind = (
                "name" if kind == "name" else "date" if kind == "date" else "value"
            )
            role = "assistant" if who == "assistant" else "user"
            if rng.random() < 0.5:
                fix_at = turn + rng.randint(gap, 2 * gap)
                pending.append((fix_at, lang, kind, old, day, at, role))
                pending.sort(key=lambda p: p[0])
                planted.append(
                    PlantedFact(f"p{len(planted):02d}", fact_kind, old, turn - 1, at, role)
                )
            else:
                planted.append(
                    PlantedFact(f"f{len(planted):02d}", fact_kind, old, turn - 1, at, role)
                )
            continue
        filler()
        turn += 1
    # A value later replaced is asked for only until its correction.
    out: list[PlantedFact] = []
    fixes = {f.stale_index: f for f in planted if f.kind == "correction"}
    for f in planted:
        fix = fixes.get(f.message_index) if f.kind != "correction" else None
        if fix is not None:
            f = PlantedFact(
                f.id,
                f.kind,
                f.value,
                f.turn_index,
                f.message_index,
                f.role,
                until=fix.message_index,
            )
        elif f.id.startswith("p"):  # its correction never came: an ordinary fact
            f = PlantedFact(f.id, f.kind, f.value, f.turn_index, f.message_index, f.role)
        out.append(f)
    out.sort(key=lambda f: f.message_index)
    out = [
        PlantedFact(
            f"f{i:02d}",
            f.kind,
            f.value,
            f.turn_index,
            f.message_index,
            f.role,
            stale=f.stale,
            stale_index=f.stale_index,
            until=f.until,
        )
        for i, f in enumerate(out)
    ]
    return Trajectory(
        seed=seed,
        messages=tuple(messages),
        facts=tuple(out),
        turn_starts=tuple(starts),
        params={"turns": turns, "facts": facts, "style": "scripts"},
    )


GENERATORS: dict[str, Callable[..., Trajectory]] = {"scripts": scripts_trajectory}
"""The ``scripts`` style: :func:`scripts_trajectory`."""
