"""``blind14-intl``: a tea importer's Japanese, Chinese, Thai and Burmese suppliers.

Each supplier has a contact, a shipping date, a price for the next lot and the town the lot
ships from. Fifteen of those sixteen are stated, in the importer's English note (the native
form with its romanisation in brackets for a name or a town) or in the supplier's own email,
found by ``search_email``; five are replaced later by an email written wholly in the
supplier's language with its own correction words (``【訂正】``, ``更正``, ``แก้ไข``,
``ပြင်ဆင်ချက်``). Dates are in each language's own form: ``2027年7月2日`` or ``令和9年7月2日``,
Chinese numerals ``二〇二七年七月二日``, Thai digits and the Buddhist era ``๒ กรกฎาคม ๒๕๗๐``,
Burmese digits ``၂၀၂၇ ခုနှစ် ဇူလိုင်လ ၂ ရက်``. None of these languages puts spaces between
words, so a value stands at the end of a ``key: value`` line or between spaces, as in real
plain-text emails, so that the scorer's whole-word match can find it.
"""

# ruff: noqa: RUF001 (full-width punctuation is how Chinese and Japanese write)

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind6.base import build, timeline
from evals.families.blind14.base import Writer14
from evals.families.facts import FactKind, PlantedFact
from evals.families.trajectories import Trajectory

__all__ = ["LANGS", "NAMES", "PLACES", "generate", "native_date"]

LANGS = ("ja", "zh", "th", "my")
WHO = {
    "ja": "the Japanese garden",
    "zh": "the Chinese co-op",
    "th": "the Thai estate",
    "my": "the Shan co-operative",
}
NAMES = {
    "ja": (
        ("山本美咲", "Misaki Yamamoto"),
        ("中村健太", "Kenta Nakamura"),
        ("小林陽子", "Yoko Kobayashi"),
        ("高橋翔", "Sho Takahashi"),
        ("渡辺由美", "Yumi Watanabe"),
        ("松田大輔", "Daisuke Matsuda"),
    ),
    "zh": (
        ("王丽华", "Wang Lihua"),
        ("陈建国", "Chen Jianguo"),
        ("刘芳", "Liu Fang"),
        ("赵明", "Zhao Ming"),
        ("黄晓燕", "Huang Xiaoyan"),
        ("周伟", "Zhou Wei"),
    ),
    "th": (
        ("สมชาย ใจดี", "Somchai Jaidee"),
        ("มาลี ศรีสุข", "Malee Srisuk"),
        ("ประเสริฐ วงศ์ทอง", "Prasert Wongthong"),
        ("นภา แก้วมณี", "Napa Kaewmanee"),
        ("อรุณ สุขสวัสดิ์", "Arun Suksawat"),
    ),
    "my": (
        ("သန္တာဝင်း", "Thandar Win"),
        ("ကျော်ဇင်ထွန်း", "Kyaw Zin Tun"),
        ("နန္ဒာလှိုင်", "Nandar Hlaing"),
        ("မင်းထက်အောင်", "Min Htet Aung"),
        ("ခင်မာထွေး", "Khin Mar Htwe"),
    ),
}
PLACES = {
    "ja": (
        ("宇治", "Uji"),
        ("掛川", "Kakegawa"),
        ("八女", "Yame"),
        ("知覧", "Chiran"),
        ("嬉野", "Ureshino"),
    ),
    "zh": (
        ("勐海", "Menghai"),
        ("安溪", "Anxi"),
        ("武夷山", "Wuyishan"),
        ("凤庆", "Fengqing"),
        ("恩施", "Enshi"),
    ),
    "th": (
        ("เชียงราย", "Chiang Rai"),
        ("แม่สลอง", "Mae Salong"),
        ("น่าน", "Nan Province"),
        ("แม่จัน", "Mae Chan"),
    ),
    "my": (("ကလော", "Kalaw"), ("နမ့်ဆန်", "Namhsan"), ("ပင်းတယ", "Pindaya"), ("ကျိုင်းတုံ", "Kengtung")),
}
_EN = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
_TH_MONTHS = (
    "มกราคม", "กุมภาพันธ์", "มีนาคม", "เมษายน", "พฤษภาคม", "มิถุนายน", "กรกฎาคม", "สิงหาคม",
    "กันยายน", "ตุลาคม", "พฤศจิกายน", "ธันวาคม",
)  # fmt: skip
_MY_MONTHS = (
    "ဇန်နဝါရီ", "ဖေဖော်ဝါရီ", "မတ်", "ဧပြီ", "မေ", "ဇွန်", "ဇူလိုင်", "ဩဂုတ်", "စက်တင်ဘာ",
    "အောက်တိုဘာ", "နိုဝင်ဘာ", "ဒီဇင်ဘာ",
)  # fmt: skip
_ZH_DIGITS = "〇一二三四五六七八九"
_TH_DIGITS = str.maketrans("0123456789", "๐๑๒๓๔๕๖๗๘๙")
_MY_DIGITS = str.maketrans("0123456789", "၀၁၂၃၄၅၆၇၈၉")


def _zh_number(n: int) -> str:
    """A day or month in Chinese numerals (``十二``, ``二十一``)."""
    tens, units = divmod(n, 10)
    head = "" if tens == 0 else "十" if tens == 1 else _ZH_DIGITS[tens] + "十"
    return head + (_ZH_DIGITS[units] if units else "")


def native_date(lang: str, day: int, month: int, year: int = 2027, era: bool = False) -> str:
    """``day month year`` as the language writes it (``era``: Japanese ``令和``)."""
    if lang == "ja":
        return f"令和{year - 2018}年{month}月{day}日" if era else f"{year}年{month}月{day}日"
    if lang == "zh":
        y = "".join(_ZH_DIGITS[int(c)] for c in str(year))
        return f"{y}年{_zh_number(month)}月{_zh_number(day)}日"
    if lang == "th":
        return f"{day} {_TH_MONTHS[month - 1]} {year + 543}".translate(_TH_DIGITS)
    return f"{year} ခုနှစ် {_MY_MONTHS[month - 1]}လ {day} ရက်".translate(_MY_DIGITS)


# the price of a lot: (native form, English alias) from an amount
def _price(lang: str, amount: int) -> tuple[str, str]:
    if lang == "ja":
        return f"{amount:,}円", f"¥{amount:,}"
    if lang == "zh":
        return f"{amount:,}元", f"CNY {amount:,}"
    if lang == "th":
        return f"{amount:,} บาท".translate(_TH_DIGITS), f"{amount:,} baht"
    return f"{amount:,} ကျပ်".translate(_MY_DIGITS), f"{amount:,} kyat"


_RANGE = {"ja": (180_000, 2_400_000), "zh": (8_000, 96_000), "th": (18_000, 240_000),
          "my": (1_500_000, 48_000_000)}  # fmt: skip
SLOTS: dict[str, tuple[FactKind, str]] = {
    "contact": ("name", "contact"),
    "ship": ("date", "shipping date"),
    "price": ("value", "price for the next lot"),
    "place": ("name", "town the lot ships from"),
}
# the key of each slot in each language's email
_KEYS = {
    "ja": {"contact": "担当者", "ship": "出荷日", "price": "金額", "place": "出荷地"},
    "zh": {"contact": "联系人", "ship": "发货日期", "price": "金额", "place": "发货地"},
    "th": {"contact": "ผู้ติดต่อ", "ship": "วันส่งสินค้า", "price": "ราคา", "place": "ส่งจาก"},
    "my": {"contact": "ဆက်သွယ်ရန်", "ship": "ပို့ဆောင်မည့်ရက်", "price": "စျေးနှုန်း", "place": "ပို့ဆောင်မည့်မြို့"},
}
_HELLO = {
    "ja": (
        "いつもお世話になっております。\n次回ロットについてご連絡いたします。",
        "よろしくお願いいたします。",
    ),
    "zh": ("您好！\n关于下一批茶叶，信息如下：", "谢谢！祝好"),
    "th": ("เรียน ลูกค้าที่เคารพ\nขอแจ้งรายละเอียดล็อตถัดไปดังนี้", "ขอบคุณค่ะ"),
    "my": ("မင်္ဂလာပါ။\nနောက်လာမည့် လက်ဖက်ခြောက်အကြောင်း အောက်ပါအတိုင်း အကြောင်းကြားပါသည်။", "ကျေးဇူးတင်ပါသည်။"),
}
_FIX = {
    "ja": (
        "件名: 【訂正】次回ロットについて\n\n大変申し訳ございません。"
        "先日お送りした内容に誤りがございました。"
        "正しくは以下の通りです。",
        "ご迷惑をおかけして申し訳ございません。",
    ),
    "zh": ("主题：更正\n\n您好！之前告知的信息有误，现更正如下：", "抱歉给您带来不便。"),
    "th": (
        "เรื่อง: แก้ไขข้อมูล\n\nขออภัยค่ะ ข้อมูลที่แจ้งไปก่อนหน้านี้ไม่ถูกต้อง ขอแก้ไขเป็นดังนี้",
        "ขออภัยในความไม่สะดวกค่ะ",
    ),
    "my": (
        "အကြောင်းအရာ - ပြင်ဆင်ချက်\n\nယခင်က ပေးပို့ခဲ့သော အချက်အလက် မှားယွင်းနေပါသည်။ အမှန်မှာ အောက်ပါအတိုင်း ဖြစ်ပါသည်။",
        "အဆင်မပြေမှုအတွက် တောင်းပန်ပါသည်။",
    ),
}


class _Intl(Writer14):
    def value(self, lang: str, slot: str) -> tuple[str, tuple[str, ...]]:
        r = self.rng
        if slot in ("contact", "place"):
            pool = NAMES[lang] if slot == "contact" else PLACES[lang]
            native = self.fresh(lambda: "|".join(r.choice(pool))).split("|")
            return native[0], (native[1],)
        if slot == "price":
            lo, hi = _RANGE[lang]
            step = 1000 if lang in ("ja", "my") else 100
            amount = int(self.fresh(lambda: str(r.randrange(lo, hi, step))))
            value, alias = _price(lang, amount)
            return value, (alias,)
        era = lang == "ja" and r.random() < 0.4
        value = self.fresh(lambda: native_date(lang, r.randint(1, 28), r.randint(6, 10), era=era))
        d, m = _parse(value, lang)
        return value, (f"{d} {_EN[m - 1]} 2027", f"{_EN[m - 1]} {d}, 2027")

    def english(self, lang: str, slot: str, value: str, aliases: tuple[str, ...]) -> int:
        r = self.rng
        who, what = WHO[lang], SLOTS[slot][1]
        shown = f"{value} ({aliases[0]})" if slot in ("contact", "place") else value
        at = self.user(
            r.choice(
                (
                    f"note for the buying file: {who}'s {what} is {shown}",
                    f"{who} confirmed on the phone, {what} {shown}",
                    f"put this down please - {who}, {what}: {shown}",
                )
            )
        )
        self.say(
            "assistant",
            r.choice(
                ("Noted in the buying file.", "Got it.", "Saved with that supplier's details.")
            ),
        )
        return at

    def email(self, lang: str, slot: str, value: str, fix: bool) -> int:
        r = self.rng
        who = WHO[lang]
        self.user(
            r.choice(
                (f"has {who} emailed?", f"check the inbox for {who}", f"anything new from {who}?")
            )
        )
        head, tail = _FIX[lang] if fix else _HELLO[lang]
        text = f"{head}\n\n{_KEYS[lang][slot]}: {value}\n\n{tail}"
        at = self.tool("search_email", {"from": who}, text, lead=r.choice((None, "Searching.")))
        self.say(
            "assistant",
            f"Yes, {who} wrote"
            + (" with a correction, see above." if fix else ", the email is above."),
        )
        return at


def _parse(value: str, lang: str) -> tuple[int, int]:
    """Day and month back from :func:`native_date`'s form."""
    for m in range(1, 13):
        for d in range(1, 29):
            if native_date(lang, d, m) == value or native_date(lang, d, m, era=True) == value:
                return d, m
    raise ValueError(value)  # pragma: no cover


def _write(w: _Intl, turns: int, facts: int) -> None:
    r = w.rng
    slots = [(lang, slot) for lang in LANGS for slot in SLOTS]
    r.shuffle(slots)
    n = facts * 3 // 4  # fifteen of twenty stated, five replaced
    stated, replaced = slots[:n], set(r.sample(range(n), facts - n))
    times = sorted(r.sample(range(2, turns - 160 if turns > 200 else turns // 2), n))
    events: list[tuple[int, Callable[[], None]]] = []
    for k, ((lang, slot), t) in enumerate(zip(stated, times, strict=True)):
        box: dict[str, PlantedFact] = {}

        def first(lang: str = lang, slot: str = slot, box: dict[str, PlantedFact] = box) -> None:
            value, aliases = w.value(lang, slot)
            if r.random() < 0.5:
                at = w.english(lang, slot, value, aliases)
            else:
                at = w.email(lang, slot, value, False)
            box["f"] = w.plant(SLOTS[slot][0], value, at, aliases=aliases)

        def fix(lang: str = lang, slot: str = slot, box: dict[str, PlantedFact] = box) -> None:
            prev = box["f"]
            value, aliases = w.value(lang, slot)
            at = w.email(lang, slot, value, True)
            w.plant(
                "correction",
                value,
                at,
                aliases=aliases,
                stale=prev.value,
                stale_index=prev.message_index,
            )
            w.supersede(prev, at)

        events.append((t, first))
        if k in replaced:
            events.append((t + r.randint(45, 140), fix))
    timeline(w, turns, events)


def generate(seed: int, *, turns: int = 430, facts: int = 20) -> Trajectory:
    """One tea importer's conversation (see the module)."""
    return build(
        seed,
        "b14-intl",
        turns,
        facts,
        _write,
        "You are the assistant of a small tea importer buying from gardens in Japan, China, "
        "Thailand and Myanmar. You can search the company inbox.",
        writer=lambda rng, system: _Intl(rng, system, "tea"),
        prefix="blind14",
    )
