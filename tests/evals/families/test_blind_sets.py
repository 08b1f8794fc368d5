"""What every held-out family promises, whichever blind set it belongs to.

A family written blind is judged by its scores only, so its conversations must at least be
sound: the same seed writes the same conversation and another seed another, every message is
one the engine accepts, turns start with the user, and every tool call is answered before the
conversation goes on. The sets from blind5 on, which plant facts the same way, also place every
value where the scorer looks, and are long enough for ten reductions at 4,000. Each set's own
claims (what it plants and how) are tested beside it: ``test_blind.py`` to ``test_blind17.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from evals.engine.config import EngineConfig
from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.families.placement import count_in
from evals.metrics.retention import fact_present
from evals.runners.trajectories import probe_rows, run_family
from summem.messages import Message
from summem.tokens.base import resolve_counter
from tests.evals.families.test_blind import BLIND as FIRST_SET

HELD_OUT = sorted(n for n in FAMILIES if n in FIRST_SET or n == "heldout" or n.startswith("blind"))


def test_every_set_is_covered() -> None:
    sets = {n.split("-")[0] for n in HELD_OUT if n.startswith("blind")}
    assert sets == {
        "blind2",
        "blind3",
        "blind4",
        "blind5",
        "blind6",
        "blind7",
        "blind8",
        "blind9",
        "blind10",
        "blind11",
        "blind12",
        "blind13",
        "blind14",
        "blind16",
        "blind17",
    }
    assert set(FIRST_SET) <= set(HELD_OUT)


@pytest.mark.parametrize("name", HELD_OUT)
def test_same_seed_same_conversation_another_seed_another(name: str) -> None:
    family = FAMILIES[name]
    a, b, c = family.trajectory(3), family.trajectory(3), family.trajectory(4)
    assert a.messages == b.messages
    assert a.facts == b.facts
    assert a.turn_starts == b.turn_starts
    assert a == b
    assert a.messages != c.messages
    assert [f.value for f in a.facts] != [f.value for f in c.facts]  # other values planted
    assert a.facts
    assert len(a.turn_starts) >= family.turns  # a pick may be a turn of its own (blind3)


@pytest.mark.parametrize("name", HELD_OUT)
def test_chat_shape_and_tool_call_pairing(name: str) -> None:
    """System first, user turns, the results of each call in its order, an assistant last."""
    t = FAMILIES[name].trajectory(0)
    assert t.messages[0]["role"] == "system"
    assert t.turn_starts[0] == 1
    assert all(t.messages[i]["role"] == "user" for i in t.turn_starts)
    pending: list[str] = []
    for i, m in enumerate(t.messages):
        Message.model_validate(m)
        if m["role"] == "tool":
            assert pending and m["tool_call_id"] == pending.pop(0), f"message {i}"
            continue
        assert not pending, f"message {i} comes before every tool result came back"
        for call in m.get("tool_calls") or ():
            json.loads(call["function"]["arguments"])
            pending.append(call["id"])
    assert not pending, "a tool call left unanswered"
    assert t.messages[-1]["role"] == "assistant"


@pytest.mark.parametrize("name", HELD_OUT)
def test_every_fact_is_said_by_its_own_message(name: str) -> None:
    t = FAMILIES[name].trajectory(0)
    for f in t.facts:
        message = t.messages[f.message_index]
        assert message["role"] == f.role, f
        forms = (f.value, *f.aliases)
        assert any(form in message_text(message) for form in forms), f


# The sets from blind5 on plant facts the same way, so the checks
# that a planted value sits where the scorer looks, that a conversation is long enough for ten
# reductions at 4,000 and that the runner takes it are written once, here, with what each set
# states differently: how many facts and turns a family may write beyond its nominal counts,
# whether a correction may name the value it replaces again ("not Tuesday"), and how long the
# longest conversation may be.
@dataclass(frozen=True)
class Planting:
    facts_exact: bool = True
    turns_exact: bool = False
    stale_repeats: int = 1
    most_tokens: int = 70_000


PLANTINGS = {
    "blind5": Planting(facts_exact=False, turns_exact=True, stale_repeats=2, most_tokens=80_000),
    "blind6": Planting(facts_exact=False),
    "blind7": Planting(),
    "blind8": Planting(),
    "blind9": Planting(),
    "blind10": Planting(),
    "blind11": Planting(),
    "blind12": Planting(),
    "blind13": Planting(),
    "blind14": Planting(),
    "blind16": Planting(),
    "blind17": Planting(),
}
WRITTEN = sorted(n for n in FAMILIES if n.split("-")[0] in PLANTINGS)
SEEDS = (0, 1, 2)


def _planting(name: str) -> Planting:
    return PLANTINGS[name.split("-")[0]]


@pytest.mark.parametrize("name", WRITTEN)
@pytest.mark.parametrize("seed", SEEDS)
def test_every_value_where_the_scorer_looks(name: str, seed: int) -> None:
    family, rule = FAMILIES[name], _planting(name)
    t = family.trajectory(seed)
    if rule.facts_exact:
        assert len(t.facts) == family.facts
    else:
        least = 18 if name == "blind6-session" else family.facts  # session: 5+4+3+3+3 at least
        assert len(t.facts) >= least
    if rule.turns_exact:
        assert len(t.turn_starts) == family.turns
    else:
        assert family.turns <= len(t.turn_starts) <= family.turns + 5
    for f in t.facts:
        assert count_in(t.messages, f.value) == 1, (f, f.value)
        assert f.value in message_text(t.messages[f.message_index])
        assert t.messages[f.message_index]["role"] == f.role
        assert t.turn_starts[f.turn_index] <= f.message_index
        if f.turn_index + 1 < len(t.turn_starts):
            assert f.message_index < t.turn_starts[f.turn_index + 1]
        for form in f.aliases:
            assert count_in(t.messages, form) <= 1, (f, form)
        for option in f.rejected:
            assert count_in(t.messages, option) == 1, (f, option)
        for old in f.stale_values:  # stated once, and (blind5) perhaps named by its fix
            assert 1 <= count_in(t.messages, old) <= rule.stale_repeats, (f, old)
        if f.stale is not None:
            assert f.stale_index is not None and f.stale_index < f.message_index
            assert f.stale in message_text(t.messages[f.stale_index])
        # the scorer finds it in its own message, and nowhere else
        assert fact_present(f, [t.messages[f.message_index]], None) == "verbatim"
        others = [m for i, m in enumerate(t.messages) if i != f.message_index]
        assert fact_present(f, others, None) is False
        assert fact_present(f, others, " ".join(map(message_text, others))) is False
        if f.until is not None:
            assert any(g.message_index == f.until and g.stale == f.value for g in t.facts)


@pytest.mark.parametrize("name", WRITTEN)
def test_long_enough_for_ten_reductions_at_4000(name: str) -> None:
    t = FAMILIES[name].trajectory(0)
    counter = resolve_counter(model="gpt-4o")
    sizes = [counter.count_message(Message.model_validate(m)) for m in t.messages]
    total, largest = sum(sizes), max(sizes)
    assert total >= 10 * (4000 + largest) + 4000
    assert total <= _planting(name).most_tokens


@pytest.mark.parametrize("name", WRITTEN)
def test_smoke_run_through_the_runner(name: str) -> None:
    config = EngineConfig(threshold_tokens=2000, target_tokens=1500, summary_max_tokens=400)
    probes, traces = run_family(
        config,
        FAMILIES[name],
        seeds=[0],
        counter=resolve_counter(model="gpt-4o"),
        turns=80,
        facts=6,
        progress=False,
    )
    assert not [v for tr in traces for v in tr.violations]
    rows = probe_rows(probes, 1)
    end = next(r for r in rows if r["probe"] == "end")
    assert end["facts"] > 0 and end["retention"] is not None
