"""The normalisation every "is it in the view?" check shares, on other languages' text."""

from __future__ import annotations

import unicodedata

from evals.text import contains_normalized, find_normalized, normalize_text, person_neutral


def test_composed_and_decomposed_letters_are_the_same_word() -> None:
    decomposed = unicodedata.normalize("NFD", "Dörte Köhler, 3. März 2026")
    assert decomposed != "Dörte Köhler, 3. März 2026"
    assert normalize_text(decomposed) == "dörte köhler 3 märz 2026"
    assert contains_normalized(normalize_text(decomposed), "3. März 2026")


def test_spanish_and_french_punctuation_is_punctuation_and_accents_stay() -> None:
    assert normalize_text("¿Cuándo llega «Núñez»? ¡Mañana!") == "cuándo llega núñez mañana"
    assert contains_normalized(normalize_text("„Jürgen Böhm“ kommt"), "Jürgen Böhm")
    assert not contains_normalized(normalize_text("Nunez"), "Núñez")  # accents are kept


def test_english_text_normalises_as_before() -> None:
    assert (
        normalize_text("The Lisbon shipment's ETA: 2026-03-14!")
        == "lisbon shipment s eta 2026 03 14"
    )


def test_person_neutral_folds_personal_pronouns_so_a_rewrite_in_the_third_person_matches() -> None:
    said = person_neutral(normalize_text("I wanted to feel closer to my faith, said Maria."))
    assert f" {person_neutral(normalize_text('her faith'))} " in f" {said} "
    assert not contains_normalized(normalize_text("closer to my faith"), "her faith")
    assert person_neutral("he did it himself for them") == "prn did it prnself for prn"
    assert person_neutral("mycology is mine") == "mycology is prn"  # whole words only


def test_values_in_text_without_spaces_are_found() -> None:
    """Thai and Japanese put no space around a value; a summary holding it verbatim holds it."""
    japanese = normalize_text("担当は山田太郎です。配送日は3月14日、よろしくお願いします。")
    assert contains_normalized(japanese, "山田太郎")
    assert contains_normalized(japanese, "14")
    assert contains_normalized(normalize_text("ราคารวม1,300บาทครับ"), "1,300")
    assert not contains_normalized(japanese, "4")  # a digit inside a number is not the number
    assert not contains_normalized(normalize_text("จัดส่ง 140 ชิ้น"), "14")
    assert not contains_normalized(normalize_text("order 12022"), "2022")


def test_find_normalized_gives_the_word_start_from_a_position() -> None:
    """Where a value stands, in the haystack's own positions, spaced or not."""
    assert find_normalized("a 14 b 14", "14") == 2
    assert find_normalized("a 14 b 14", "14", 3) == 7
    assert find_normalized("配送日は3月14日", "14") == 6
    assert find_normalized("配送日は3月14日", "14", 7) == -1
