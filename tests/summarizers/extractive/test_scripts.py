# ruff: noqa: RUF001 - words and digits of other scripts
"""Names, dates and amounts written in other scripts and numeral systems (``scripts``)."""

from __future__ import annotations

from typing import Any

from summem._flow import run_sync
from summem.messages import Message
from summem.summarizers.base import SummaryOutput, SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.summarizers.extractive.facts import score_sentence, tokenize
from summem.summarizers.extractive.scripts import other_script
from summem.tokens.base import ApproxCounter

_FILLER = (
    "Can you check the stock count for the Haifa shelf today?",
    "The Haifa shelf shows 41 units, last counted on Friday.",
    "How many parcels went out to Osaka yesterday afternoon?",
    "Twenty-two parcels went to Osaka, the last one handed over at 16:25.",
)


def msg(id: str, content: str, role: str = "user") -> Message:
    return Message.from_openai({"role": role, "content": content}, id=id)


def summarize(messages: list[Message], max_tokens: int = 600, **kw: Any) -> SummaryOutput:
    request = SummaryRequest(
        messages=messages,
        previous_summary=None,
        max_tokens=max_tokens,
        token_counter=ApproxCounter(),
    )
    return run_sync(ExtractiveSummarizer(**kw).summarize(request))


def test_words_of_other_scripts_and_digits_of_other_numeral_systems_are_read() -> None:
    assert tokenize("موعد الشحن ١٤ تموز ٢٠٢٧") == ["موعد", "الشحن", "14", "تموز", "2027"]
    assert tokenize("माल की डिलीवरी १६ अगस्त २०२७") == ["माल", "की", "डिलीवरी", "16", "अगस्त", "2027"]
    assert tokenize("ราคารวม ๑,๓๐๐ บาท") == ["ราคารวม", "1", "300", "บาท"]
    assert tokenize("納品日は 2027年3月14日 です") == [
        *("納品日は", "2027", "年", "3", "月", "14", "日", "です"),
    ]
    assert tokenize("Gdańsk, Łódź and 12 Main St") == ["gda", "sk", "d", "and", "12", "main", "st"]
    for sentence in ("ราคารวมทั้งหมด ๑,๓๐๐ บาท ครับ", "Контакт у Києві: Ірина Бондар."):
        assert score_sentence(sentence, "user") > 0, sentence


def test_a_fact_written_in_another_script_is_kept() -> None:
    facts = (
        "ราคารวมทั้งหมด ๑,๓๐๐ บาท ครับ",
        "موعد الشحن ١٤ تموز ٢٠٢٧ حسب الاتفاق .",
        "नया पता: राजेश कुमार, २३ मार्च २०२७ से।",
    )
    messages = [msg("a", facts[0]), msg("b", _FILLER[1], "assistant"), msg("c", facts[1])]
    messages += [msg("d", _FILLER[0]), msg("e", facts[2]), msg("f", _FILLER[3], "assistant")]
    out = summarize(messages)
    assert all(f in out.text for f in facts), out.text
    ablated = summarize(messages, ablate=("script_words",))
    assert not any(f in ablated.text for f in facts), ablated.text


def test_a_correction_naming_its_value_in_another_script_replaces_the_statement() -> None:
    messages = [
        msg("a", "The Kyiv shipment is due on 22 серпня 2027."),
        msg("b", "Noted, I will tell the warehouse.", "assistant"),
        msg("c", "Our contact at the Haifa supplier is אבי ביטון."),
        msg("d", _FILLER[3], "assistant"),
        msg("e", "Sorry, the Kyiv shipment moved to 3 квітня 2027."),
        msg("f", "Sorry, the Haifa contact changed, it is דוד כהן now."),
    ]
    out = summarize(messages)
    assert "3 квітня 2027" in out.text and "דוד כהן" in out.text, out.text
    assert "22 серпня" not in out.text and "אבי ביטון" not in out.text, out.text
    ablated = summarize(messages, ablate=("embedded_values",))
    assert "22 серпня" in ablated.text and "אבי ביטון" in ablated.text, ablated.text


def test_two_towns_with_two_dates_in_another_script_are_two_things() -> None:
    messages = [
        msg("a", "The Amman shipment moved to ١٩ حزيران ٢٠٢٧ ."),
        msg("b", _FILLER[1], "assistant"),
        msg("c", "The Shenzhen shipment moved to 2027年3月20日 ."),
    ]
    out = summarize(messages)
    assert "١٩ حزيران ٢٠٢٧" in out.text and "2027年3月20日" in out.text, out.text


def test_an_emoji_or_a_latin_ligature_is_no_word_of_another_script() -> None:
    # A mark alone (the emoji variation selector U+FE0F, the keycap U+20E3) is no word, and
    # Latin-derived letters (ligatures, superscripts, letterlike symbols) are read as before.
    read = ["sunny", "on", "saturday", "press", "1", "now"]
    assert tokenize("Sunny ☀️ on Saturday, press 1️⃣ now") == read
    assert tokenize("the ﬁnal ℹ️ xⁱ") == ["the", "nal", "x"]
    assert not other_script("an em dash — and “curly quotes” cost €5 🎉 ☀️")
    assert other_script("Контакт") and other_script("٢٣")


def test_an_emoji_in_a_restatement_does_not_drop_the_fuller_statement() -> None:
    fuller = "The picnic at the lake park is on Saturday at 3, bring the blue blanket."
    messages = [
        msg("a", fuller),
        msg("b", _FILLER[1], "assistant"),
        msg("c", "Sorry, the picnic is on Saturday at 3 ☀️"),
        msg("d", _FILLER[3], "assistant"),
    ]
    assert fuller in summarize(messages).text


def test_a_cell_read_under_an_ablation_is_read_again_without_it() -> None:
    from summem.summarizers.extractive.described import _words
    from summem.summarizers.extractive.scripts import script_words_scope

    assert _words("room ١٧") == ("room", "17")
    with script_words_scope(frozenset({"script_words"})):
        assert _words("room ١٧") == ("room",)
        assert _words("room ١٨") == ("room",)
    assert _words("room ١٨") == ("room", "18")
