"""The normalisation every "is it in the view?" check shares, on other languages' text."""

from __future__ import annotations

import unicodedata

from evals.text import contains_normalized, normalize_text, person_neutral


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
