from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from evals.families.facts import KINDS, PlantedFact, message_text
from evals.families.trajectories import Trajectory, generate_trajectory
from evals.metrics.retention import fact_present, fact_retention
from summem.messages import SummaryInfo, parse_message, parse_messages

ROOT = Path(__file__).resolve().parents[3]


def digest(t: Trajectory) -> str:
    return hashlib.sha256(json.dumps(t.to_dict(), sort_keys=True).encode()).hexdigest()


def test_same_seed_same_trajectory() -> None:
    a = generate_trajectory(42, turns=80, facts=15, tool_call_rate=0.4)
    b = generate_trajectory(42, turns=80, facts=15, tool_call_rate=0.4)
    assert a == b
    assert digest(a) == digest(b)


def test_other_seed_other_trajectory() -> None:
    a = generate_trajectory(1, turns=40, facts=8)
    b = generate_trajectory(2, turns=40, facts=8)
    assert a.messages != b.messages
    assert [f.value for f in a.facts] != [f.value for f in b.facts]


def test_deterministic_across_hash_seeds() -> None:
    code = (
        "import hashlib, json; from evals.families.trajectories import generate_trajectory; "
        "t = generate_trajectory(7, turns=60, facts=12, tool_call_rate=0.5, parallel_rate=0.5); "
        "print(hashlib.sha256(json.dumps(t.to_dict(), sort_keys=True).encode()).hexdigest())"
    )
    digests = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        digests.add(out.stdout.strip())
    assert digests == {
        digest(generate_trajectory(7, turns=60, facts=12, tool_call_rate=0.5, parallel_rate=0.5))
    }


@pytest.mark.parametrize("seed", range(12))
def test_planted_facts_are_in_their_message_and_nowhere_else(seed: int) -> None:
    t = generate_trajectory(seed, turns=100, facts=25)
    texts = [message_text(m) for m in t.messages]
    assert len(t.facts) == 25
    for fact in t.facts:
        assert fact.value in texts[fact.message_index]
        assert t.messages[fact.message_index]["role"] == fact.role
        assert [i for i, text in enumerate(texts) if fact.value in text] == [fact.message_index]
        start = t.turn_starts[fact.turn_index]
        end = (
            t.turn_starts[fact.turn_index + 1]
            if fact.turn_index + 1 < len(t.turn_starts)
            else len(t.messages)
        )
        assert start <= fact.message_index < end


def test_fact_kinds_are_balanced_and_placed_in_every_role() -> None:
    t = generate_trajectory(3, turns=400, facts=100)
    assert Counter(f.kind for f in t.facts) == {k: 20 for k in KINDS}
    roles = {(f.kind, f.role) for f in t.facts}
    assert {
        ("value", "tool"),
        ("code", "tool"),
        ("code", "user"),
        ("date", "user"),
        ("date", "assistant"),
        ("name", "user"),
        ("preference", "user"),
    } <= roles
    assert {f.role for f in t.facts if f.kind == "value"} == {"tool"}
    assert len({f.value for f in t.facts}) == 100
    # value facts are numbers inside JSON tool results, written as they will be read back
    for f in t.facts:
        if f.kind == "value":
            result = json.loads(t.messages[f.message_index]["content"])
            assert float(f.value) in result.values()


def test_messages_are_valid_and_tool_calls_paired() -> None:
    t = generate_trajectory(5, turns=300, facts=30, tool_call_rate=0.5, parallel_rate=0.5)
    parse_messages(t.messages)  # valid chat-completions input
    assert t.messages[0]["role"] == "system"
    assert len(t.turn_starts) == 300
    assert all(t.messages[i]["role"] == "user" for i in t.turn_starts)
    parallel = shuffled = 0
    for i, m in enumerate(t.messages):
        if not m.get("tool_calls"):
            continue
        ids = [c["id"] for c in m["tool_calls"]]
        results = []
        j = i + 1
        while j < len(t.messages) and t.messages[j]["role"] == "tool":
            results.append(t.messages[j]["tool_call_id"])
            j += 1
        assert sorted(results) == sorted(ids)
        assert t.messages[j]["role"] == "assistant"  # the reply after the results
        parallel += len(ids) > 1
        shuffled += results != ids
    assert parallel > 10
    assert shuffled > 0


def test_tool_call_rate() -> None:
    none = generate_trajectory(9, turns=200, facts=0, tool_call_rate=0.0)
    every = generate_trajectory(9, turns=200, facts=0, tool_call_rate=1.0, parallel_rate=0.0)
    assert not any(m["role"] == "tool" for m in none.messages)
    calls = [m for m in every.messages if m.get("tool_calls")]
    assert len(calls) == 200
    assert all(len(m["tool_calls"]) == 1 for m in calls)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"turns": 5, "facts": 6},
        {"turns": 0, "facts": 0},
        {"turns": 10, "facts": 2, "tool_call_rate": 1.5},
        {"turns": 10, "facts": 2, "parallel_rate": -0.1},
        {"turns": 10, "facts": 2, "filler_sentences": (3, 2)},
    ],
)
def test_rejects_impossible_arguments(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        generate_trajectory(0, **kwargs)  # type: ignore[arg-type]


def test_facts_before() -> None:
    t = generate_trajectory(11, turns=50, facts=10)
    cut = t.facts[4].message_index
    assert t.facts_before(cut) == list(t.facts[:4])
    assert t.facts_before(len(t.messages)) == list(t.facts)


# -- fact_present / fact_retention ---------------------------------------------------------

FACT = PlantedFact(
    id="f00",
    kind="date",
    value="14 March 2025",
    turn_index=3,
    message_index=7,
    role="user",
    aliases=("March 14, 2025", "2025-03-14"),
)
CODE = PlantedFact(
    id="f01", kind="code", value="QX-48213", turn_index=4, message_index=9, role="tool"
)


def test_verbatim_in_a_kept_message() -> None:
    view = [
        {"role": "user", "content": "I'm leaving on 14 March 2025."},
        {"role": "tool", "tool_call_id": "c1", "content": '{"ticket_id": "QX-48213"}'},
    ]
    assert fact_present(FACT, view, None) == "verbatim"
    assert fact_present(CODE, view, "no codes here") == "verbatim"


def test_carried_by_the_summary_in_any_accepted_form() -> None:
    assert fact_present(FACT, [], "User departs march 14, 2025 (hike).") == "summary"
    assert fact_present(FACT, [], "- departure: 2025-03-14") == "summary"
    assert fact_present(CODE, [], "ticket qx-48213 open") == "summary"
    assert fact_present(FACT, [], "User departs in March.") is False
    assert fact_present(CODE, [], "ticket QX-482130") is False  # whole words only
    assert fact_present(CODE, [{"role": "user", "content": "hello"}], None) is False


def test_summary_message_in_the_view_is_judged_as_summary() -> None:
    summary = "Earlier: ticket QX-48213 was opened."
    as_dict = [{"role": "system", "content": summary}, {"role": "user", "content": "hi"}]
    assert fact_present(CODE, as_dict, summary) == "summary"
    marked = parse_message({"role": "system", "content": summary}).as_summary(SummaryInfo())
    assert fact_present(CODE, [marked], "Earlier: ticket QX-48213 was opened.") == "summary"


def test_fact_retention_counts() -> None:
    name = PlantedFact(
        id="f02", kind="name", value="Ingrid Okonkwo", turn_index=5, message_index=11, role="user"
    )
    view = [{"role": "user", "content": "Send it to Ingrid Okonkwo."}]
    r = fact_retention([FACT, CODE, name], view, "Ticket QX-48213.")
    assert (r.total, r.verbatim, r.summary, r.kept) == (3, 1, 1, 2)
    assert r.missing == ("f00",)
    assert r.by_kind == {"code": (1, 1), "date": (0, 1), "name": (1, 1)}
    assert r.share == pytest.approx(2 / 3)
    assert fact_retention([], view, None).share == 1.0


def test_a_full_view_keeps_every_fact_and_an_empty_one_none() -> None:
    t = generate_trajectory(21, turns=60, facts=15)
    assert fact_retention(t.facts, t.messages, None).verbatim == 15
    assert fact_retention(t.facts, t.messages[:1], None).kept == 0


# -- families: realistic filler and corrections -------------------------------------------


def test_realistic_filler_is_dense_with_values_and_never_repeats_a_fact() -> None:
    import re

    plain = generate_trajectory(3, turns=80, facts=10)
    real = generate_trajectory(3, turns=80, facts=10, filler="realistic")
    assert real == generate_trajectory(3, turns=80, facts=10, filler="realistic")
    digits = re.compile(r"\d")

    def with_values(t: Trajectory) -> int:
        planted = {f.message_index for f in t.facts}
        return sum(
            1
            for i, m in enumerate(t.messages)
            if i not in planted and m["role"] != "tool" and digits.search(str(m.get("content")))
        )

    assert with_values(real) > 2 * with_values(plain)
    assert plain == generate_trajectory(3, turns=80, facts=10, filler="plain", corrections=0)


def test_corrections_state_a_value_then_replace_it_later() -> None:
    traj = generate_trajectory(5, turns=100, facts=10, corrections=6, filler="realistic")
    corrections = [f for f in traj.facts if f.kind == "correction"]
    assert len(corrections) == 6 and len(traj.facts) == 16
    for fact in corrections:
        assert fact.stale is not None and fact.stale_index is not None
        assert fact.stale_index < fact.message_index
        assert fact.stale in traj.messages[fact.stale_index]["content"]
        assert fact.value in traj.messages[fact.message_index]["content"]
        assert fact.stale != fact.value
    with pytest.raises(ValueError, match="corrections"):
        generate_trajectory(1, turns=10, facts=5, corrections=3)
    with pytest.raises(ValueError, match="filler"):
        generate_trajectory(1, turns=10, facts=2, filler="noisy")


@pytest.mark.parametrize("seed", range(12))
def test_no_item_is_corrected_twice_in_the_same_sentence(seed: int) -> None:
    # with 10 pairs and 8 items, a pair could restate another's item in the same sentence:
    # its correction would then rightly replace the value the other pair still expects
    traj = generate_trajectory(seed, turns=200, facts=10, corrections=10)
    frames = []
    for fact in traj.facts:
        if fact.kind == "correction":
            assert fact.stale is not None and fact.stale_index is not None
            frames.append(traj.messages[fact.stale_index]["content"].replace(fact.stale, "{v}"))
    assert len(frames) == 10 and len(set(frames)) == 10, Counter(frames).most_common(2)


def test_both_speakers_say_the_same_fact_sentences() -> None:
    user_only = [generate_trajectory(s, turns=200, facts=20) for s in range(4)]
    both = [generate_trajectory(s, turns=200, facts=20, speakers="both") for s in range(4)]
    told = ("code", "name", "date", "preference")

    def roles(trajs: list[Trajectory]) -> Counter[str]:
        return Counter(f.role for t in trajs for f in t.facts if f.kind in told)

    assert roles(both)["assistant"] >= 15 and roles(both)["user"] >= 15
    # with one speaker, the user tells them (but for the assistant's own dates)
    assert roles(user_only)["user"] > 3 * roles(user_only)["assistant"]
    for traj in both:
        for fact in traj.facts:
            text = message_text(parse_message(traj.messages[fact.message_index]))
            assert fact.value in text
    assert generate_trajectory(0, turns=200, facts=20, speakers="user") == user_only[0]
    with pytest.raises(ValueError, match="speakers"):
        generate_trajectory(0, speakers="assistant")
