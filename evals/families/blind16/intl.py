"""``b16-intl``: a sari shop in Leicester buys from Tamil Nadu and Bangladesh.

Four suppliers (the Kanchipuram silk co-op and the Madurai cotton weavers, who write Tamil;
the Tangail handloom co-op and the Rajshahi silk house, who write Bengali), each with a
contact, a dispatch date, a price for the next lot and a warehouse address. A value is said in
the owner's English note (a name or an address in its script, its romanisation in brackets;
a rupee price), in the supplier's email in its language found by ``search_email`` (at the end of
a ``label: value`` line), or in the supplier's WhatsApp message the owner pastes (a sentence in
the language, the value standing between spaces). A few are corrected later, by an email or a
message in the language with its own correction words, or by the owner's English note. Tamil
dates are ``14 மார்ச் 2027`` or ``14.03.2027``, Bengali ones ``১৪ মার্চ ২০২৭`` or
``১৪/০৩/২০২৭`` in Bengali digits; prices ``₹1,24,500`` and ``১,২৪,৫০০ টাকা`` (lakh grouping).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from evals.families.blind6.base import spread, timeline
from evals.families.blind16.base import Writer16, make
from evals.families.facts import FactKind
from evals.families.pools import MONTHS
from evals.families.trajectories import Trajectory

__all__ = ["SUPPLIERS", "bengali_digits", "generate", "lakh", "native_date"]

SYSTEM = (
    "You help the owner of a sari and handloom shop in Leicester keep her buying file: "
    "suppliers in Tamil Nadu and Bangladesh, their contacts, prices and shipments. You can "
    "search her email."
)
TA_MONTHS = (
    "ஜனவரி", "பிப்ரவரி", "மார்ச்", "ஏப்ரல்", "மே", "ஜூன்", "ஜூலை", "ஆகஸ்ட்", "செப்டம்பர்",
    "அக்டோபர்", "நவம்பர்", "டிசம்பர்",
)  # fmt: skip
BN_MONTHS = (
    "জানুয়ারি", "ফেব্রুয়ারি", "মার্চ", "এপ্রিল", "মে", "জুন", "জুলাই", "আগস্ট", "সেপ্টেম্বর",
    "অক্টোবর", "নভেম্বর", "ডিসেম্বর",
)  # fmt: skip
TA_NAMES = (
    ("செல்வி முருகன்", "Selvi Murugan"), ("கார்த்திக் ராஜா", "Karthik Raja"),
    ("மீனா சுப்பிரமணியன்", "Meena Subramanian"), ("அருண் குமார்", "Arun Kumar"),
    ("லட்சுமி நாராயணன்", "Lakshmi Narayanan"), ("பிரியா வேணு", "Priya Venu"),
    ("தேவி சங்கர்", "Devi Shankar"), ("விஜய் பாலன்", "Vijay Balan"),
)  # fmt: skip
BN_NAMES = (
    ("রহিমা খাতুন", "Rahima Khatun"), ("আনিসুর রহমান", "Anisur Rahman"),
    ("ফারহানা ইসলাম", "Farhana Islam"), ("মাহমুদ হাসান", "Mahmud Hasan"),
    ("নাসরিন আক্তার", "Nasrin Akter"), ("শফিকুল আলম", "Shafiqul Alam"),
    ("তানিয়া চৌধুরী", "Tania Chowdhury"), ("জাহিদ হোসেন", "Zahid Hossain"),
)  # fmt: skip
TA_STREETS = (
    ("காந்தி சாலை", "Gandhi Road"), ("நேரு தெரு", "Nehru Street"), ("கோயில் தெரு", "Koil Street"),
    ("பஜார் சாலை", "Bazaar Road"), ("பெரிய தெரு", "Periya Street"),
)  # fmt: skip
BN_STREETS = (
    ("কলেজ রোড", "College Road"), ("স্টেশন রোড", "Station Road"), ("বাজার রোড", "Bazar Road"),
    ("হাসপাতাল রোড", "Hospital Road"), ("মসজিদ রোড", "Masjid Road"),
)  # fmt: skip


@dataclass(frozen=True)
class Supplier:
    english: str  # how the owner calls them
    lang: str  # "ta" or "bn"
    signature: str  # how their emails are signed


SUPPLIERS = (
    Supplier("the Kanchipuram silk co-op", "ta", "காஞ்சிபுரம் பட்டு நெசவாளர் கூட்டுறவு சங்கம்"),
    Supplier("the Madurai cotton weavers", "ta", "மதுரை கைத்தறி நெசவாளர்கள்"),
    Supplier("the Tangail handloom co-op", "bn", "টাঙ্গাইল তাঁত সমবায় সমিতি"),
    Supplier("the Rajshahi silk house", "bn", "রাজশাহী সিল্ক হাউস"),
)
DETAILS = ("contact", "date", "price", "address")
KIND: dict[str, FactKind] = {
    "contact": "name",
    "date": "date",
    "price": "value",
    "address": "value",
}
LABEL = {
    "ta": {"contact": "தொடர்பு நபர்", "date": "அனுப்பும் தேதி", "price": "விலை", "address": "முகவரி"},
    "bn": {"contact": "যোগাযোগ", "date": "পাঠানোর তারিখ", "price": "মূল্য", "address": "ঠিকানা"},
}
LEAD = {
    "ta": {
        "contact": "இனி உங்கள் ஆர்டர்களை கவனிப்பவர் விவரம் கீழே.",
        "date": "உங்கள் ஆர்டர் அனுப்பப்படும் தேதி கீழே உள்ளது.",
        "price": "அடுத்த சரக்கின் விலை விவரம் கீழே.",
        "address": "எங்கள் கிடங்கின் முகவரி கீழே.",
    },
    "bn": {
        "contact": "এখন থেকে আপনার অর্ডার যিনি দেখবেন তাঁর নাম নিচে দেওয়া হলো।",
        "date": "আপনার অর্ডার পাঠানোর তারিখ নিচে দেওয়া হলো।",
        "price": "পরবর্তী চালানের মূল্য নিচে দেওয়া হলো।",
        "address": "আমাদের গুদামের ঠিকানা নিচে দেওয়া হলো।",
    },
}
SENTENCE = {  # a WhatsApp message: the value between spaces (or before the danda)
    "ta": {
        "contact": "இனி {v} உங்கள் ஆர்டர்களை கவனிப்பார்.",
        "date": "சரக்கு {v} அன்று அனுப்பப்படும்.",
        "price": "அடுத்த சரக்கின் விலை {v} ஆகும்.",
        "address": "எங்கள் கிடங்கு இப்போது {v} இல் உள்ளது.",
    },
    "bn": {
        "contact": "এখন থেকে {v} আপনার অর্ডার দেখবেন।",
        "date": "মাল {v} তারিখে পাঠানো হবে।",
        "price": "পরবর্তী চালানের দাম {v}।",
        "address": "আমাদের গুদাম এখন {v} এ।",
    },
}
GREETING = {"ta": ("வணக்கம்,", "நன்றி,"), "bn": ("প্রিয় মহোদয়া,", "ধন্যবাদান্তে,")}
CORRECTION = {
    "ta": ("பொருள்: திருத்தம்", "முந்தைய செய்தியில் ஒரு தவறு இருந்தது. சரியான விவரம்:",
           "மன்னிக்கவும், முன்பு தவறாக சொன்னேன்."),
    "bn": ("বিষয়: সংশোধনী", "আগের বার্তায় একটি ভুল ছিল। সঠিক তথ্য:",
           "দুঃখিত, আগে ভুল বলেছিলাম।"),
}  # fmt: skip


def bengali_digits(text: str) -> str:
    return text.translate(str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯"))


def lakh(n: int) -> str:
    """``124500`` as India and Bangladesh group it: ``1,24,500``."""
    s = str(n)
    head, tail = s[:-3], s[-3:]
    groups: list[str] = []
    while len(head) > 2:
        groups.insert(0, head[-2:])
        head = head[:-2]
    return ",".join([g for g in (head, *groups) if g] + [tail])


def native_date(lang: str, day: int, month: int, numeric: bool = False) -> str:
    if lang == "ta":
        return f"{day}.{month:02d}.2027" if numeric else f"{day} {TA_MONTHS[month - 1]} 2027"
    text = f"{day}/{month:02d}/2027" if numeric else f"{day} {BN_MONTHS[month - 1]} 2027"
    return bengali_digits(text)


def _value(w: Writer16, s: Supplier, detail: str) -> tuple[str, tuple[str, ...]]:
    r = w.rng
    if detail == "contact":
        native, roman = w.fresh(
            lambda: "|".join(r.choice(TA_NAMES if s.lang == "ta" else BN_NAMES))
        ).split("|")
        return native, (roman,)
    if detail == "date":
        key = w.fresh(lambda: f"{r.randint(10, 28)} {r.randint(1, 12)}")
        d, m = map(int, key.split())
        month = MONTHS[m - 1]
        value = native_date(s.lang, d, m, numeric=r.random() < 0.4)
        return value, (f"{d} {month} 2027", f"{month} {d}, 2027")
    if detail == "price":
        n = int(w.fresh(lambda: str(r.randint(36, 480) * 500)))
        if s.lang == "ta":
            forms = (f"Rs {lakh(n)}", f"{lakh(n)} rupees", f"INR {n:,}")
            return f"₹{lakh(n)}", tuple(dict.fromkeys(forms))
        forms = (f"{lakh(n)} taka", f"{n:,} taka", f"Tk {lakh(n)}")
        return f"{bengali_digits(lakh(n))} টাকা", tuple(dict.fromkeys(forms))
    streets = TA_STREETS if s.lang == "ta" else BN_STREETS
    if s.lang == "ta":
        key = w.fresh(lambda: f"{r.randint(3, 180)}|{r.randrange(len(streets))}")
        house, k = key.split("|")
        return f"{house}, {streets[int(k)][0]}", (f"{house} {streets[int(k)][1]}",)
    key = w.fresh(lambda: f"{r.randint(3, 180)}/{r.randint(1, 9)}|{r.randrange(len(streets))}")
    house, k = key.split("|")
    return f"{bengali_digits(house)} {streets[int(k)][0]}", (f"{house} {streets[int(k)][1]}",)


def _say(w: Writer16, s: Supplier, detail: str, fix: bool) -> tuple[int, str, tuple[str, ...]]:
    """Write one message holding a fresh value for ``detail``; (its index, value, aliases)."""
    r = w.rng
    value, aliases = _value(w, s, detail)
    hello, bye = GREETING[s.lang]
    how = r.random()
    if (detail in ("contact", "address") and how < 0.35) or (
        detail == "price" and s.lang == "ta" and how < 0.2
    ):
        roman = f" ({aliases[0]})" if detail != "price" else ""
        what = {
            "contact": "contact",
            "address": "warehouse address",
            "price": "price for the next lot",
        }[detail]
        lead = (
            "I had it wrong in the file, "
            if fix
            else r.choice(("note for the buying file: ", "for the file, "))
        )
        i = w.user(f"{lead}{s.english}'s {what} is {value}{roman}")
        w.say("assistant", "Updated the buying file." if fix else "Noted in the buying file.")
    elif how < 0.65:
        subject, fixed, _ = CORRECTION[s.lang]
        head = f"{subject}\n\n" if fix else ""
        lead = fixed if fix else LEAD[s.lang][detail]
        body = (
            f"{head}{hello}\n\n{lead}\n\n{LABEL[s.lang][detail]}: {value}\n\n{bye}\n{s.signature}"
        )
        w.user(f"anything new from {s.english}?" if not fix else f"did {s.english} email again?")
        i = w.tool("search_email", {"from": s.english}, body, lead=r.choice((None, "Searching.")))
        w.say("assistant", f"Yes, an email from {s.english}; I've put it in the buying file.")
    else:
        sorry = CORRECTION[s.lang][2] + " " if fix else ""
        said = sorry + SENTENCE[s.lang][detail].replace("{v}", value)
        i = w.user(f"got this on whatsapp from {s.english}, can you file it\n\n{said}")
        w.say("assistant", "Filed under their entry.")
    return i, value, aliases


def write(w: Writer16, turns: int, facts: int) -> None:
    r = w.rng
    w.chain_ids = {}
    fixes = facts // 5
    pairs = r.sample([(s, d) for s in SUPPLIERS for d in DETAILS], facts - fixes)
    fixed = r.sample(range(len(pairs)), fixes)
    starts = spread(r, turns - 6, len(pairs), max(2, (turns - 6) // (len(pairs) + 2)))
    events: list[tuple[int, Callable[[], None]]] = []
    for k, (start, (s, d)) in enumerate(zip(starts, pairs, strict=True)):
        events.append((start, partial(_first, w, s, d)))
        if k in fixed:
            later = min(start + r.randint(40, 140), turns - 3)
            events.append((later, partial(_fix, w, s, d)))
    timeline(w, turns, events)


def _first(w: Writer16, s: Supplier, d: str) -> None:
    i, value, aliases = _say(w, s, d, fix=False)
    fact = w.plant(KIND[d], value, i, aliases=aliases)
    w.chain_ids[f"{s.english}/{d}"] = [fact.id]


def _fix(w: Writer16, s: Supplier, d: str) -> None:
    i, value, aliases = _say(w, s, d, fix=True)
    old = next(f for f in w.facts if f.id in w.chain_ids[f"{s.english}/{d}"])
    w.supersede(old, i)
    w.plant("correction", value, i, aliases=aliases, stale=old.value, stale_index=old.message_index)


def generate(seed: int, *, turns: int = 460, facts: int = 20) -> Trajectory:
    return make(seed, "b16-intl", turns, facts, write, SYSTEM, "intl")
