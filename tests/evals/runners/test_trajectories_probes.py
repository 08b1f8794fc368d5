"""The probe's columns for the held-out families: chains of corrections and confirmations."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from evals.engine.config import EngineConfig, build_reducer
from evals.families.catalogue import FAMILIES
from evals.families.trajectories import Trajectory
from evals.runners.trajectories import Probe, _probe, probe_rows
from summem.messages import SummaryInfo, parse_message, parse_messages, user
from summem.tokens.base import resolve_counter

REDUCER = build_reducer(EngineConfig(2000, 1500, 400), counter=resolve_counter(model="gpt-4o"))


def _probe_with(traj: Trajectory, upto: int, summary: str, tail: list[Any]) -> Probe:
    history = parse_messages(traj.messages[1:upto])
    history = [parse_message(traj.messages[0]), *history]
    msg = user(summary).as_summary(SummaryInfo(watermark=len(history)))
    state = SimpleNamespace(
        history=history, view=[msg, *tail], summary=msg, cycle=SimpleNamespace(number=1)
    )
    return _probe(traj, state, None, REDUCER)  # type: ignore[arg-type]


def test_an_older_value_of_a_chain_counts_as_stale_and_stale_only() -> None:
    traj = FAMILIES["correction-chains"].trajectory(1)
    fact = next(f for f in traj.facts if f.older and f.until is None)
    upto = len(traj.messages)
    oldest = fact.older[0]
    only_old = _probe_with(traj, upto, f"- user: it was {oldest}", [])
    assert (only_old.stale, only_old.stale_unmarked, only_old.stale_only) == (1, 1, 1)
    old_then_new = _probe_with(traj, upto, f"- user: it was {oldest}\n- user: now {fact.value}", [])
    assert (old_then_new.stale, old_then_new.stale_unmarked, old_then_new.stale_only) == (1, 0, 0)
    rows = probe_rows([only_old], 1, cycles=(1,))
    assert rows[0]["stale only"] is not None and rows[0]["stale only"] > 0


def test_a_superseded_value_is_not_asked_about() -> None:
    traj = FAMILIES["correction-chains"].trajectory(1)
    fact = next(f for f in traj.facts if f.until is not None)
    assert fact.until is not None
    assert fact in traj.facts_before(fact.until)
    assert fact not in traj.facts_before(fact.until + 1)


def test_a_choice_is_unclear_when_the_offer_stays_without_its_acceptance() -> None:
    traj = FAMILIES["confirmations"].trajectory(2)
    fact = next(f for f in traj.facts if f.rejected)
    assert fact.confirm_index is not None
    upto = fact.confirm_index + 2
    offer = str(traj.messages[fact.message_index]["content"])
    accept = str(traj.messages[fact.confirm_index]["content"])
    here = [f for f in traj.facts_before(upto) if f.rejected]
    offer_only = _probe_with(traj, upto, f"- assistant: {offer}", [])
    assert offer_only.choices == len(here) and offer_only.choice_unclear == 1
    with_acceptance = _probe_with(traj, upto, f"- assistant: {offer}\n- user: {accept}", [])
    assert with_acceptance.choice_unclear == 0
    rejected = _probe_with(traj, upto, f"- assistant: maybe {fact.rejected[0]}", [])
    assert rejected.rejected_only == 1 and rejected.choice_unclear == 0
    rows = probe_rows([offer_only], 1, cycles=(1,))
    assert rows[0]["choice unclear"] == 1 / len(here)


def test_a_run_reports_its_summary_lines_and_dependent_fragments() -> None:
    from evals.runners.trajectories import run_family

    probes, _ = run_family(
        EngineConfig(1000, 700, 250),
        FAMILIES["fragments"],
        seeds=[0],
        turns=60,
        facts=10,
        counter=resolve_counter(model="gpt-4o"),
        progress=False,
    )
    end = probe_rows(probes, 1)[-1]
    assert end["summary lines"] > 0 and "dependent <8 words" in end
    assert end["dependent <8 words"] == probes[-1].fragments.dependent
