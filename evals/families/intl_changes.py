# ruff: noqa: RUF001 - dates, amounts and corrections in other scripts
"""``intl-changes``: dates and amounts changed in the language they were said in.

An own family (not held out; written with the summarizer in view, round 14) for what
``scripts-intl`` leaves out: messages of two or three sentences ended by their script's own
full stop (``。`` ``।`` ``؟`` ``።``), values written into text without spaces (Japanese,
Chinese, Thai: "納期は2027年5月9日です。"), a Japanese or Chinese date sometimes in ideographs
("五月二十日"), and every change said wholly in the language, restating what it is about with
a correction or change word of that language and often a new month. Languages: Japanese,
Chinese, Thai, Hindi, Arabic, Russian, Korean, Amharic (dates in Western months written in
Ge'ez letters, Latin digits). Each of 16 things (a town's delivery date or price) is stated
once by the user or the assistant; about 60% are changed later by the user, some twice.
Filler is the shop's English traffic and short sentences of the same languages without values.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evals.families.facts import FactKind, PlantedFact
from evals.families.trajectories import Trajectory

__all__ = ["GENERATORS", "intl_changes_trajectory"]

_KANJI = "〇一二三四五六七八九"


def _kanji_number(n: int) -> str:
    """``20`` -> ``二十``, ``9`` -> ``九``, ``14`` -> ``十四`` (days and months)."""
    tens, ones = divmod(n, 10)
    head = "" if tens == 0 else ("十" if tens == 1 else _KANJI[tens] + "十")
    return head + (_KANJI[ones] if ones or not head else "")


@dataclass(frozen=True)
class _Lang:
    """A language: its town, how it writes a date and a price, its sentences."""

    key: str
    town: str
    months: tuple[str, ...]  # empty: months are numbers (年月日)
    date: str  # {d} day, {m} month, {y} year
    price: str  # {p} the amount
    said: dict[str, str]  # kind -> statement, {v} the value
    changed: tuple[dict[str, str], ...]  # kind -> a change in the language, {v} the new value
    aside: tuple[str, ...]  # a second sentence with no value
    ideographs: bool = False


_LANGS: tuple[_Lang, ...] = (
    _Lang(
        "ja",
        "Sendai",
        (),
        "{y}年{m}月{d}日",
        "{p}円",
        {"date": "仙台向けの納期は{v}です。", "price": "仙台の見積額は{v}です。"},
        (
            {
                "date": "訂正です。仙台向けの納期は{v}に変更になりました。",
                "price": "すみません、仙台の見積額は{v}に修正です。",
            },
            {
                "date": "やっぱり仙台向けの納期は{v}でお願いします。",
                "price": "仙台の見積額、やはり{v}でした。",
            },
        ),
        ("倉庫には連絡済みです。", "よろしくお願いします。", "詳しくはメールで送ります。"),
        ideographs=True,
    ),
    _Lang(
        "zh",
        "Xiamen",
        (),
        "{y}年{m}月{d}日",
        "{p}元",
        {"date": "厦门的交货日期是{v}。", "price": "厦门的报价是{v}。"},
        (
            {"date": "更正一下，厦门的交货日期改为{v}。", "price": "不好意思，厦门的报价改成{v}。"},
            {"date": "抱歉，厦门的交货日期现在是{v}。", "price": "厦门的报价其实是{v}。"},
        ),
        ("仓库已经知道了。", "谢谢！", "细节我发邮件给你。"),
        ideographs=True,
    ),
    _Lang(
        "th",
        "Khon Kaen",
        ("มกราคม", "กุมภาพันธ์", "มีนาคม", "เมษายน", "พฤษภาคม", "มิถุนายน", "กรกฎาคม", "สิงหาคม"),
        "{d} {m} {y}",
        "{p}บาท",
        {"date": "ส่งของไปขอนแก่นวันที่ {v} ครับ", "price": "ราคาส่งขอนแก่นรวม{v}ครับ"},
        (
            {
                "date": "ขอโทษครับ ส่งของไปขอนแก่นเลื่อนเป็นวันที่ {v} ครับ",
                "price": "แก้ไขครับ ราคาส่งขอนแก่นรวม{v}ครับ",
            },
            {"date": "เปลี่ยนนะครับ ส่งของไปขอนแก่นวันที่ {v} ครับ", "price": "ราคาส่งขอนแก่นตอนนี้รวม{v}ครับ"},
        ),
        ("แจ้งโกดังแล้วครับ", "ขอบคุณครับ"),
    ),
    _Lang(
        "hi",
        "Nagpur",
        ("जनवरी", "फ़रवरी", "मार्च", "अप्रैल", "मई", "जून", "जुलाई", "अगस्त"),
        "{d} {m} {y}",
        "₹{p}",
        {"date": "नागपुर का माल {v} को पहुँचेगा।", "price": "नागपुर के ऑर्डर की कीमत {v} है।"},
        (
            {
                "date": "सुधार: नागपुर का माल अब {v} को पहुँचेगा।",
                "price": "माफ़ कीजिए, नागपुर के ऑर्डर की कीमत {v} है।",
            },
            {
                "date": "बदलाव: नागपुर का माल {v} को पहुँचेगा।",
                "price": "नागपुर के ऑर्डर की कीमत अब {v} है।",
            },
        ),
        ("गोदाम को बता दिया है।", "धन्यवाद।"),
    ),
    _Lang(
        "ar",
        "Irbid",
        ("كانون الثاني", "شباط", "آذار", "نيسان", "أيار", "حزيران", "تموز", "آب"),
        "{d} {m} {y}",
        "{p} دينار",
        {"date": "موعد تسليم إربد {v} .", "price": "سعر طلبية إربد {v} ."},
        (
            {"date": "تصحيح: موعد تسليم إربد أصبح {v} .", "price": "عذرا، سعر طلبية إربد {v} ."},
            {
                "date": "تغيير: موعد تسليم إربد الآن {v} .",
                "price": "سعر طلبية إربد بدلا من ذلك {v} .",
            },
        ),
        ("هل وصلك البريد؟", "أبلغنا المستودع."),
    ),
    _Lang(
        "ru",
        "Kazan",
        ("января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа"),
        "{d} {m} {y}",
        "{p} руб.",
        {"date": "Поставка в Казань {v} года.", "price": "Цена заказа для Казани {v}"},
        (
            {
                "date": "Извините, поставка в Казань перенесена на {v} года.",
                "price": "Поправка: цена заказа для Казани {v}",
            },
            {
                "date": "Поставка в Казань теперь {v} года.",
                "price": "Цена заказа для Казани изменилась: {v}",
            },
        ),
        ("Склад предупреждён.", "Спасибо!"),
    ),
    _Lang(
        "ko",
        "Daegu",
        (),
        "{y}년 {m}월 {d}일",
        "{p}원",
        {"date": "대구 출고일은 {v} 입니다.", "price": "대구 주문 금액은 {v} 입니다."},
        (
            {
                "date": "정정합니다. 대구 출고일은 {v} 입니다.",
                "price": "죄송합니다, 대구 주문 금액은 {v} 입니다.",
            },
            {
                "date": "대구 출고일이 {v} 으로 변경되었습니다.",
                "price": "대구 주문 금액은 이제 {v} 입니다.",
            },
        ),
        ("창고에 알렸습니다.", "감사합니다!"),
    ),
    _Lang(
        "am",
        "Bahir Dar",
        ("ጃንዩወሪ", "ፌብሩወሪ", "ማርች", "ኤፕሪል", "ሜይ", "ጁን", "ጁላይ", "ኦገስት"),
        "{d} {m} {y}",
        "{p} ብር",
        {"date": "የባሕር ዳር ጭነት {v} ይደርሳል።", "price": "የባሕር ዳር ትዕዛዝ ዋጋ {v} ነው።"},
        (
            {"date": "ይቅርታ፣ የባሕር ዳር ጭነት {v} ይደርሳል።", "price": "እርማት፦ የባሕር ዳር ትዕዛዝ ዋጋ {v} ነው።"},
            {"date": "የባሕር ዳር ጭነት አሁን {v} ይደርሳል።", "price": "የባሕር ዳር ትዕዛዝ ዋጋ ተቀይሯል፣ {v} ነው።"},
        ),
        ("መጋዘኑ ተነግሮታል።", "አመሰግናለሁ።"),
    ),
)
_KINDS = ("date", "price")
_FILLER_USER = (
    "Can you check how many boxes are left for {t}?",
    "Did the courier pick up the {t} parcels today?",
    "Please remind me to call the bank tomorrow morning.",
    "Is the label printer working again?",
)
_FILLER_ASSISTANT = (
    "There are {k} boxes left for {t}.",
    "Yes, the courier collected {k} parcels for {t} at noon.",
    "I will remind you tomorrow at nine.",
    "The label printer works again after the update.",
)


def intl_changes_trajectory(seed: int, *, turns: int = 360, facts: int = 16) -> Trajectory:
    """``turns`` user turns; ``facts`` things stated in their language, most changed in it."""
    rng = random.Random(seed)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are the assistant of a small export shop."}
    ]
    starts: list[int] = []
    used: set[str] = set()
    slots = [(lang, kind) for lang in _LANGS for kind in _KINDS]
    rng.shuffle(slots)
    slots = slots[:facts]  # each town's date and price at most once
    gap = max(4, turns // (facts + 2))
    plan = sorted(rng.sample(range(2, turns - 3 * gap), facts))
    pending: list[tuple[int, int, _Lang, str, str, int, int]] = []  # turn, n, lang, kind...
    planted: list[PlantedFact] = []
    said: dict[int, list[str]] = {}  # a thing: its values so far
    turn = 0

    def say(role: str, content: str) -> int:
        if role == "user":
            starts.append(len(messages))
        messages.append({"role": role, "content": content})
        return len(messages) - 1

    def value(lang: _Lang, kind: str) -> tuple[str, str]:
        """A fresh value as written in the text, and as the facts hold it."""
        while True:
            if kind == "price":
                text = lang.price.format(p=f"{rng.randint(12, 96) * 100 + rng.choice((0, 50)):,}")
                held = text
            else:
                d, m, y = rng.randint(2, 28), rng.randint(1, 8), rng.choice((2027, 2028))
                month = lang.months[m - 1] if lang.months else str(m)
                held = lang.date.format(d=d, m=month, y=y)
                text = held
                if lang.ideographs and rng.random() < 0.4:  # the date in ideographs
                    held = f"{_kanji_number(m)}月{_kanji_number(d)}日"
                    text = held
            if held not in used:
                used.add(held)
                return text, held

    def with_aside(lang: _Lang, sentence: str) -> str:
        if rng.random() < 0.6:
            aside = rng.choice(lang.aside)
            spaced = lang.key not in ("ja", "zh", "th")
            return f"{sentence} {aside}" if spaced else f"{sentence}{aside}"
        return sentence

    while turn < turns:
        if pending and pending[0][0] <= turn:
            _, n, lang, kind, old, stale_at, slot = pending.pop(0)
            text, held = value(lang, kind)
            at = say("user", with_aside(lang, rng.choice(lang.changed)[kind].format(v=text)))
            say("assistant", rng.choice(("Noted.", "Updated.", "OK, changed.")))
            planted.append(
                PlantedFact(
                    f"c{slot:02d}{n}",
                    "correction",
                    held,
                    turn,
                    at,
                    "user",
                    stale=old,
                    stale_index=stale_at,
                    older=tuple(said[slot][:-1]),
                )
            )
            said[slot].append(held)
            if n < 2 and rng.random() < 0.35:  # changed again
                pending.append(
                    (turn + rng.randint(gap, 2 * gap), n + 1, lang, kind, held, at, slot)
                )
                pending.sort(key=lambda p: p[0])
            turn += 1
            continue
        if plan and turn >= plan[0]:
            plan.pop(0)
            slot = len(planted)
            lang, kind = slots[len([f for f in planted if f.kind != "correction"])]
            text, held = value(lang, kind)
            sentence = with_aside(lang, lang.said[kind].format(v=text))
            if rng.random() < 0.5:
                at = say("user", sentence)
                say("assistant", "Thanks, saved.")
                role = "user"
            else:
                say("user", f"What did {lang.town} confirm?")
                at = say("assistant", sentence)
                role = "assistant"
            fact_kind: FactKind = "date" if kind == "date" else "value"
            planted.append(PlantedFact(f"s{slot:02d}", fact_kind, held, turn, at, role))
            said[slot] = [held]
            if rng.random() < 0.6:
                pending.append((turn + rng.randint(gap, 2 * gap), 0, lang, kind, held, at, slot))
                pending.sort(key=lambda p: p[0])
            turn += 1
            continue
        town = rng.choice(_LANGS).town
        k = str(rng.randint(3, 60))
        if rng.random() < 0.25:
            lang = rng.choice(_LANGS)
            say("user", rng.choice(lang.aside))
            say("assistant", "Thanks.")
        else:
            say("user", rng.choice(_FILLER_USER).format(t=town, k=k))
            say("assistant", rng.choice(_FILLER_ASSISTANT).format(t=town, k=k))
        turn += 1
    # A value later replaced is asked for only until its change.
    fixes = {f.stale_index: f for f in planted if f.kind == "correction"}
    out: list[PlantedFact] = []
    for f in sorted(planted, key=lambda f: f.message_index):
        fix = fixes.get(f.message_index)
        out.append(
            PlantedFact(
                f"f{len(out):02d}",
                f.kind,
                f.value,
                f.turn_index,
                f.message_index,
                f.role,
                stale=f.stale,
                stale_index=f.stale_index,
                older=f.older,
                until=fix.message_index if fix is not None else None,
            )
        )
    return Trajectory(
        seed=seed,
        messages=tuple(messages),
        facts=tuple(out),
        turn_starts=tuple(starts),
        params={"turns": turns, "facts": facts, "style": "intl-changes"},
    )


GENERATORS: dict[str, Callable[..., Trajectory]] = {"intl-changes": intl_changes_trajectory}
"""The ``intl-changes`` style: :func:`intl_changes_trajectory`."""
