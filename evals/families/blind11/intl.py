"""``blind11-intl``: a registrar's loans from Jaipur, Seoul, Amman and Budapest, as written.

A museum registrar arranges four loans and passes on each lender's courier, customs broker,
packing date and arrival date as the lender wrote them: Hindi names in Devanagari
(``प्रिया राघवन``), Korean ones in Hangul (``김서연``), Arabic ones in Arabic script
(``ليلى حداد``) and Hungarian ones family name first (``Kovács Zsófia``); dates in the
lender's own form, Hindi ``14 मार्च 2027`` (or in Devanagari digits, ``१४ मार्च २०२७``),
Korean ``2027년 3월 14일``, Arabic with the Levantine month names ``14 آذار 2027`` (or in
Arabic-Indic digits, ``١٤ آذار ٢٠٢٧``), Hungarian ``2027. március 14.``. Half come in the
registrar's English sentence, half in a lender's email in its own language found by a
``search_email`` look-up. Some are replaced forty turns and more later (a courier or broker
changed, a date moved). Aliases: a name romanised (``Priya Raghavan``, ``Kim Seo-yeon``,
``Layla Haddad``) or Hungarian given name first (``Zsófia Kovács``), which the registrar
sometimes adds in brackets; a date in English (``14 March 2027``, ``March 14, 2027``).
"""

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind6.base import build, timeline
from evals.families.blind11.base import Writer11, writer
from evals.families.facts import FactKind, PlantedFact
from evals.families.placement import Exhausted
from evals.families.pools import MONTHS
from evals.families.trajectories import Trajectory

__all__ = ["CITIES", "NAMES", "generate", "native_date"]

NAMES = {
    "hi": (
        ("प्रिया राघवन", "Priya Raghavan"), ("अर्जुन मेहता", "Arjun Mehta"),
        ("सुनीता शर्मा", "Sunita Sharma"), ("कविता जोशी", "Kavita Joshi"),
        ("रोहन कपूर", "Rohan Kapoor"), ("अनन्या अय्यर", "Ananya Iyer"),
        ("देवेंद्र त्रिपाठी", "Devendra Tripathi"), ("मीरा चौधरी", "Meera Chaudhary"),
    ),
    "ko": (
        ("김서연", "Kim Seo-yeon"), ("박지훈", "Park Ji-hoon"), ("이하은", "Lee Ha-eun"),
        ("최민준", "Choi Min-jun"), ("정유나", "Jung Yu-na"), ("한도윤", "Han Do-yun"),
        ("윤수아", "Yoon Su-a"), ("강태현", "Kang Tae-hyun"),
    ),
    "ar": (
        ("ليلى حداد", "Layla Haddad"), ("عمر الخطيب", "Omar Al-Khatib"),
        ("رنا المصري", "Rana Al-Masri"), ("يوسف النجار", "Yousef Al-Najjar"),
        ("سلمى العبدالله", "Salma Al-Abdullah"), ("كريم الزعبي", "Karim Al-Zoubi"),
        ("هالة الشريف", "Hala Al-Sharif"), ("طارق منصور", "Tariq Mansour"),
    ),
    "hu": (
        ("Kovács Zsófia", "Zsófia Kovács"), ("Szabó Gergő", "Gergő Szabó"),
        ("Tóth Eszter", "Eszter Tóth"), ("Horváth Bence", "Bence Horváth"),
        ("Nagy Réka", "Réka Nagy"), ("Földes Lőrinc", "Lőrinc Földes"),
        ("Varga Ildikó", "Ildikó Varga"), ("Fekete Ákos", "Ákos Fekete"),
    ),
}  # fmt: skip
"""Each language's names as the lender writes them, with the romanised or reordered form."""

CITIES = {"hi": "Jaipur", "ko": "Seoul", "ar": "Amman", "hu": "Budapest"}

_HI_MONTHS = ("जनवरी", "फ़रवरी", "मार्च", "अप्रैल", "मई", "जून", "जुलाई", "अगस्त", "सितंबर",
              "अक्टूबर", "नवंबर", "दिसंबर")  # fmt: skip
_AR_MONTHS = ("كانون الثاني", "شباط", "آذار", "نيسان", "أيار", "حزيران", "تموز", "آب", "أيلول",
              "تشرين الأول", "تشرين الثاني", "كانون الأول")  # fmt: skip
_HU_MONTHS = ("január", "február", "március", "április", "május", "június", "július",
              "augusztus", "szeptember", "október", "november", "december")  # fmt: skip
_DEVANAGARI = str.maketrans("0123456789", "०१२३४५६७८९")
_ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")


def native_date(lang: str, day: int, month: int, native_digits: bool = False) -> str:
    """A day of 2027 as a lender in ``lang`` writes it (``month`` from 1)."""
    if lang == "hi":
        text = f"{day} {_HI_MONTHS[month - 1]} 2027"
        return text.translate(_DEVANAGARI) if native_digits else text
    if lang == "ko":
        return f"2027년 {month}월 {day}일"
    if lang == "ar":
        text = f"{day} {_AR_MONTHS[month - 1]} 2027"
        return text.translate(_ARABIC_INDIC) if native_digits else text
    return f"2027. {_HU_MONTHS[month - 1]} {day}."


SLOTS: tuple[tuple[str, FactKind], ...] = (
    ("courier", "name"),
    ("customs broker", "name"),
    ("packing date", "date"),
    ("arrival date", "date"),
)
"""What each loan has: who travels with it, who clears it, when it is packed and arrives."""

_LABELS = {
    "hi": {"courier": "कूरियर", "customs broker": "सीमा शुल्क एजेंट",
           "packing date": "पैकिंग की तारीख", "arrival date": "पहुँचने की तारीख"},
    "ko": {"courier": "담당 쿠리어", "customs broker": "통관 대행", "packing date": "포장 날짜",
           "arrival date": "도착 예정일"},
    "ar": {"courier": "المرافق", "customs broker": "المخلص الجمركي",
           "packing date": "تاريخ التغليف", "arrival date": "تاريخ الوصول"},
    "hu": {"courier": "Futár", "customs broker": "Vámügynök", "packing date": "Csomagolás",
           "arrival date": "Érkezés"},
}  # fmt: skip
"""Each slot's label in a lender's email."""

_GREETING = {
    "hi": ("नमस्ते,", "धन्यवाद।"),
    "ko": ("안녕하세요,", "감사합니다."),
    "ar": ("مرحباً،", "مع التحية."),
    "hu": ("Tisztelt Kollégák!", "Üdvözlettel:"),
}
_CHANGED = {"hi": "(बदला गया)", "ko": "(변경)", "ar": "(تعديل)", "hu": "(módosítva)"}

_SAY = (
    "for the {c} loan, the {s} is {v}",
    "{c} update: {s} {v}",
    "noting this for the {c} loan before i lose it, {s}: {v}",
    "the {c} lender confirmed the {s}, {v}",
)
_FIX = (
    "change on the {c} loan, the {s} is now {v}",
    "{c} have moved things, {s} {v} now",
    "scrap the earlier {s} for {c}, it's {v}",
)


def _write(w: Writer11, turns: int, facts: int) -> None:
    r = w.rng
    fixes = max(1, facts // 4)
    slots = [(lang, s, kind) for lang in NAMES for s, kind in SLOTS]
    chosen = r.sample(slots, facts - fixes)
    redo = r.sample(chosen, fixes)
    names = {lang: r.sample(NAMES[lang], len(NAMES[lang])) for lang in NAMES}
    last = turns - 6
    gap = min(40, last // 3)
    events: list[tuple[int, Callable[[], None]]] = []

    def value(lang: str, kind: FactKind) -> tuple[str, tuple[str, ...], str]:
        """A fresh value, its aliases, and how the registrar might add the alias."""
        if kind == "name":
            if not names[lang]:
                raise Exhausted("names")
            native, alias = names[lang].pop()
            return native, (alias,), f"{native} ({alias})"
        day, month = map(int, w.fresh(lambda: f"{r.randint(1, 28)}/{r.randint(1, 12)}").split("/"))
        native = native_date(lang, day, month, r.random() < 0.4)
        english = MONTHS[month - 1]
        return native, (f"{day} {english} 2027", f"{english} {day}, 2027"), native

    def say(lang: str, slot: str, kind: FactKind, fix: bool) -> tuple[int, str, tuple[str, ...]]:
        v, aliases, both = value(lang, kind)
        city = CITIES[lang]
        if r.random() < 0.5:
            w.user(r.choice((f"anything in from {city}?", f"check email from the {city} lender")))
            hello, bye = _GREETING[lang]
            label = _LABELS[lang][slot]
            mark = f" {_CHANGED[lang]}" if fix else ""
            i = w.tool("search_email", {"from": city}, f"{hello}\n{label}: {v}{mark}\n{bye}")
            w.say("assistant", f"There's a reply from {city}, above.")
        else:
            shown = both if r.random() < 0.5 else v
            i = w.user(r.choice(_FIX if fix else _SAY).format(c=city, s=slot, v=shown))
            w.say("assistant", w.short())
        return i, v, aliases

    for lang, slot, kind in chosen:
        held: list[PlantedFact] = []
        start = r.randint(2, max(2, last - gap)) if (lang, slot, kind) in redo else None

        def first(lang: str = lang, slot: str = slot, kind: FactKind = kind,
                  held: list[PlantedFact] = held) -> None:  # fmt: skip
            i, v, aliases = say(lang, slot, kind, False)
            held.append(w.plant(kind, v, i, aliases=aliases))

        def later(lang: str = lang, slot: str = slot, kind: FactKind = kind,
                  held: list[PlantedFact] = held) -> None:  # fmt: skip
            i, v, aliases = say(lang, slot, kind, True)
            old = held[0]
            w.supersede(old, i)
            w.plant("correction", v, i, aliases=aliases, stale=old.value,
                    stale_index=old.message_index)  # fmt: skip

        if start is None:
            events.append((r.randint(2, last), first))
        else:
            events.append((start, first))
            events.append((r.randint(start + gap, max(start + gap, last)), later))
    timeline(w, turns, events)


def generate(seed: int, *, turns: int = 430, facts: int = 20) -> Trajectory:
    """A registrar's conversation: names and dates in four scripts (see the module)."""
    return build(
        seed,
        "b11-intl",
        turns,
        facts,
        _write,
        "You are an assistant for a museum registrar arranging international loans.",
        writer=writer("registrar"),
        prefix="blind11",
    )
