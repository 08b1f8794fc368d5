"""The ``heldout`` family: a generator written apart from the others, checked like them."""

from __future__ import annotations

import itertools
import re
from collections import Counter

import pytest

from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.families.trajectories import Trajectory, generate_trajectory
from evals.runners.trajectories import DEFAULT_CONFIG, probe_rows, run_family
from evals.text import normalize_text
from summem.summarizers.extractive.summarizer import ExtractiveSummarizer
from summem.tokens.base import resolve_counter

HELDOUT = FAMILIES["heldout"]


def _frame(traj: Trajectory, i: int) -> list[str]:
    """The words of fact ``i``'s message with its value taken out."""
    fact = traj.facts[i]
    text = str(traj.messages[fact.message_index]["content"]).replace(fact.value, " VALUE ")
    return re.findall(r"[\w']+", text.lower())


def test_same_seed_same_trajectory_and_another_seed_another() -> None:
    a = HELDOUT.trajectory(7)
    assert a == HELDOUT.trajectory(7)
    assert [f.value for f in a.facts] != [f.value for f in HELDOUT.trajectory(8).facts]
    assert a.params["style"] == "heldout" and len(a.facts) == HELDOUT.facts + HELDOUT.corrections


@pytest.mark.parametrize("seed", range(8))
def test_each_probe_is_in_its_source_message_and_nowhere_else(seed: int) -> None:
    traj = HELDOUT.trajectory(seed)
    texts = [f" {normalize_text(message_text(m))} " for m in traj.messages]
    for fact in traj.facts:
        assert fact.value in message_text(traj.messages[fact.message_index])
        forms = [f" {normalize_text(x)} " for x in (fact.value, *fact.aliases)]
        assert [i for i, t in enumerate(texts) if any(x in t for x in forms)] == [
            fact.message_index
        ]
        if fact.stale is not None:
            stale = f" {normalize_text(fact.stale)} "
            assert [i for i, t in enumerate(texts) if stale in t] == [fact.stale_index]
            assert fact.stale_index is not None and fact.stale_index < fact.message_index


@pytest.mark.parametrize("seed", range(6))
def test_facts_come_as_lists_far_apart_frames_tool_results_and_corrections(seed: int) -> None:
    traj = HELDOUT.trajectory(seed)
    facts = traj.facts
    runs: list[list[int]] = [[0]]
    for i in range(1, len(facts)):
        same = facts[i].kind == facts[i - 1].kind and facts[i].role == facts[i - 1].role == "user"
        if same and facts[i].turn_index == facts[i - 1].turn_index + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    lists = [run for run in runs if len(run) >= 3]
    assert len(lists) >= 2, runs
    for run in lists:  # one frame: the same words on one side of the value, most shared
        frames = [_frame(traj, i) for i in run]
        for a, b in itertools.pairwise(frames):
            at_a, at_b = a.index("value"), b.index("value")
            assert a[:at_a] == b[:at_b] or a[at_a:] == b[at_b:], (a, b)
            assert len(set(a) & set(b)) >= 3, (a, b)
    far = [
        (i, j)
        for i in range(len(facts))
        for j in range(i + 1, len(facts))
        if facts[j].turn_index - facts[i].turn_index >= HELDOUT.turns // 3
        and facts[i].kind == facts[j].kind != "correction"
        and len(_frame(traj, i)) == len(_frame(traj, j))
        and sum(x != y for x, y in zip(_frame(traj, i), _frame(traj, j), strict=True)) == 1
    ]
    assert len(far) >= 2, far
    roles = Counter(f.role for f in facts)
    assert roles["tool"] >= 2 and roles["assistant"] >= 2 and roles["user"] >= 10, roles
    assert sum(f.kind == "correction" for f in facts) == HELDOUT.corrections
    assert {f.kind for f in facts} >= {"code", "name", "date", "preference", "value"}


def test_filler_repeats_sentence_frames_with_new_values() -> None:
    traj = HELDOUT.trajectory(3)
    planted = {f.message_index for f in traj.facts}
    skeletons: Counter[str] = Counter()
    values: dict[str, set[str]] = {}
    for i, message in enumerate(traj.messages):
        if i in planted or message["role"] == "system" or not message.get("content"):
            continue
        for sentence in re.split(r"(?<=[.?!])\s+", str(message["content"])):
            skeleton = re.sub(r"\d+", "#", sentence)
            if skeleton != sentence:  # a sentence carrying numbers
                skeletons[skeleton] += 1
                values.setdefault(skeleton, set()).add(sentence)
    recurring = [s for s, n in skeletons.items() if n >= 5 and len(values[s]) >= 5]
    assert len(recurring) >= 8, skeletons.most_common(12)
    numbered = sum(1 for m in traj.messages if re.search(r"\d", str(m.get("content") or "")))
    assert numbered >= len(traj.messages) // 2


def test_rejects_arguments_it_cannot_honour() -> None:
    with pytest.raises(ValueError, match="filler='realistic'"):
        generate_trajectory(0, style="heldout")
    with pytest.raises(ValueError, match="speakers"):
        generate_trajectory(0, style="heldout", filler="realistic", speakers="both")
    with pytest.raises(ValueError, match="at most"):
        generate_trajectory(0, turns=60, facts=20, style="heldout", filler="realistic")
    with pytest.raises(ValueError, match="corrections"):
        generate_trajectory(0, facts=10, corrections=9, style="heldout", filler="realistic")


def _retention(summarizer: ExtractiveSummarizer | None, seeds: int) -> dict[str, float]:
    """Share of facts carried after 10 cycles and at the end, and the invariant violations."""
    probes, traces = run_family(
        DEFAULT_CONFIG,
        HELDOUT,
        seeds=range(seeds),
        counter=resolve_counter(model="gpt-4o"),
        progress=False,
        summarizer=summarizer,
    )
    assert not [v for t in traces for v in t.violations]
    return {row["probe"]: row["retention"] for row in probe_rows(probes, seeds, cycles=(10,))}


def test_a_deliberately_weakened_summarizer_scores_lower_on_heldout() -> None:
    shipped = _retention(None, 4)
    weak = ExtractiveSummarizer(
        ablate=(
            *("numbers", "codes", "time_words", "names", "preferences", "first_person", "events"),
            "novelty",  # new words outrank repeated ones: it alone keeps much of what these do
        )
    )
    weakened = _retention(weak, 4)
    assert set(shipped) == set(weakened) == {"cycle 10", "end"}
    # after 10 cycles clearly lower; at the end, when both have lost most, still lower
    assert weakened["cycle 10"] <= shipped["cycle 10"] - 0.1, (shipped, weakened)
    assert weakened["end"] < shipped["end"], (shipped, weakened)
