"""A row named by a word deep in a long free-text cell: named by the whole cell, shown cut.

Handmade (not the evals' own): a job list whose description ends with the street that tells
the jobs apart, and an inbox whose subjects are long; a later message names a row by words
past the first 40 characters of its cell.
"""

from __future__ import annotations

import json

from summem._flow import run_sync
from summem.summarizers.base import SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.summarizers.extractive.tables import compact_table, find_table
from summem.tokens.base import ApproxCounter
from tests.summarizers.extractive.spans import call, msg, talk

STREETS = ["Marsh Lane", "Harbour Court", "Quarry Road", "Elm Terrace", "Kiln Yard"]
STREETS += ["Foundry Row", "Abbey Mews", "Tanner Street"]
WHO = ["Okafor", "Lindqvist", "Brennan", "Moreau", "Haddad", "Novak", "Ferreira", "Sato"]


def jobs() -> str:
    """A field-service list: each job told apart by the street at the end of its description."""
    rows = [
        {
            "job": f"J-{5100 + i}",
            "description": f"annual boiler service for the landlord at {street}",
            "engineer": WHO[i],
            "slot": f"{8 + i}:30",
        }
        for i, street in enumerate(STREETS)
    ]
    return json.dumps({"jobs": rows})


def summary(later: str, ablate: tuple[str, ...] = ()) -> str:
    messages = [
        call("a1", "c1", "list_jobs", {"week": 32}),
        msg("t1", jobs(), "tool", tool_call_id="c1"),
        msg("a2", "Here are this week's jobs.", "assistant"),
        *talk(),
        msg("u1", later),
    ]
    request = SummaryRequest(
        messages=messages, max_tokens=200, token_counter=ApproxCounter(), previous_summary=None
    )
    return run_sync(ExtractiveSummarizer(ablate=list(ablate)).summarize(request)).text


def test_a_cell_is_read_whole_and_shown_cut() -> None:
    found = find_table(json.loads(jobs()), jobs())
    assert found is not None
    assert found[1][1][1] == "annual boiler service for the landlord at Harbour Court"
    record = compact_table(found, 400)
    assert "annual boiler service for the landlord \u2026" in record
    assert "Harbour Court" not in record
    cut = find_table(json.loads(jobs()), jobs(), shapes={"table_shapes", "deep_records"})
    assert cut is not None and cut[1][1][1] == "annual boiler service for the landlord \u2026"


def test_a_row_named_by_words_past_the_cut_is_kept_and_the_ablation_loses_it() -> None:
    later = "Who's doing the Harbour Court job? I need to ring them."
    assert "J-5101 | annual boiler service for the landlord \u2026 | Lindqvist" in summary(later)
    assert "Lindqvist" not in summary(later, ("whole_cells",))
