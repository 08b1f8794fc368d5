"""The ``indirect``, ``nested-tool`` and ``lists`` families: generators, what they show."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from evals.families.catalogue import FAMILIES
from evals.families.facts import KINDS, message_text
from evals.families.lists import LIST_FRAMES, LIST_LENGTH
from evals.families.trajectories import NESTED_KINDS, generate_trajectory
from evals.runners.ablation import DEFAULT_FAMILIES, measure
from evals.runners.trajectories import DEFAULT_CONFIG, probe_rows, run_trajectories
from evals.text import normalize_text
from summem._flow import Flow, done
from summem.summarizers.base import SummaryOutput, SummaryRequest
from summem.summarizers.extractive.summarizer import ExtractiveSummarizer
from summem.tokens.base import resolve_counter

STYLES = ("indirect", "nested-tool", "lists")


@pytest.mark.parametrize("style", STYLES)
def test_same_seed_same_trajectory_and_another_seed_another(style: str) -> None:
    a = generate_trajectory(4, turns=80, facts=12, style=style)
    assert a == generate_trajectory(4, turns=80, facts=12, style=style)
    b = generate_trajectory(5, turns=80, facts=12, style=style)
    assert [f.value for f in a.facts] != [f.value for f in b.facts]
    assert a.params["style"] == style
    assert "style" not in generate_trajectory(4, turns=80, facts=12).params  # unchanged


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("seed", range(6))
def test_each_probe_is_in_its_source_message_and_nowhere_else(style: str, seed: int) -> None:
    traj = generate_trajectory(seed, turns=200, facts=20, style=style)
    assert len(traj.facts) == 20
    texts = [f" {normalize_text(message_text(m))} " for m in traj.messages]
    for fact in traj.facts:
        assert fact.value in message_text(traj.messages[fact.message_index])
        forms = [f" {normalize_text(x)} " for x in (fact.value, *fact.aliases)]
        assert [i for i, t in enumerate(texts) if any(x in t for x in forms)] == [
            fact.message_index
        ]


def _depth_of(node: Any, value: str, depth: int = 0) -> int | None:
    """How many objects and lists enclose the scalar ``value`` in ``node`` (None: absent)."""
    if isinstance(node, dict):
        children = list(node.values())
    elif isinstance(node, list):
        children = node
    else:
        text = json.dumps(node) if not isinstance(node, str) else node
        return depth if text == value else None
    for child in children:
        found = _depth_of(child, value, depth + 1)
        if found is not None:
            return found
    return None


def test_nested_tool_facts_sit_three_or_more_levels_deep_among_other_keys() -> None:
    for seed in range(4):
        traj = generate_trajectory(seed, turns=200, facts=20, style="nested-tool")
        assert {f.kind for f in traj.facts} == set(NESTED_KINDS)
        for fact in traj.facts:
            message = traj.messages[fact.message_index]
            assert fact.role == "tool" == message["role"]
            data = json.loads(message["content"])
            depth = _depth_of(data, fact.value)
            assert depth is not None and depth >= 4, (fact, depth)  # a leaf under 3+ levels
            assert len(re.findall(r'"\w+":', message["content"])) >= 20  # among many keys
            assert len(re.findall(r"\d+", message["content"])) >= 10  # and numbers


def test_indirect_facts_are_implied_never_stated_as_what_they_are() -> None:
    kinds: set[str] = set()
    sentences: set[str] = set()
    for seed in range(4):
        traj = generate_trajectory(seed, turns=200, facts=20, style="indirect")
        for fact in traj.facts:
            kinds.add(fact.kind)
            text = traj.messages[fact.message_index]["content"]
            assert fact.role == "user"
            # never "my X is Y" / "X is Y": the value follows no copula
            assert not re.search(r"\b(is|are|was)\s+" + re.escape(fact.value), text), text
            sentences.add(text.replace(fact.value, "{v}"))
    assert kinds == {"code", "name", "date", "value", "preference"}
    assert len(sentences) >= 15  # varied templates, not one frame


def test_the_families_are_run_and_ablated() -> None:
    for name in STYLES:
        assert FAMILIES[name].style == name
        assert name in DEFAULT_FAMILIES


def test_a_deliberately_weakened_summarizer_scores_lower_on_indirect() -> None:
    shipped = measure(None, families=("indirect",), seeds=3)
    weak = ExtractiveSummarizer(
        ablate=(
            *("numbers", "codes", "time_words", "names", "preferences", "first_person", "events"),
            "novelty",  # new words outrank repeated ones: it alone keeps much of what these do
        )
    )
    weakened = measure("weakened", families=("indirect",), seeds=3, summarizer=weak)
    assert shipped.violations == weakened.violations == 0
    assert set(shipped.figures) == {"indirect:c10", "indirect:end"}
    for key in shipped.figures:
        assert weakened.figures[key] <= shipped.figures[key] - 0.1, (key, shipped, weakened)


class _DeepReader:
    """A test summarizer that keeps every scalar of every tool result down to ``levels``
    objects and lists (all of them by default), newest first."""

    name = "deep-reader"

    def __init__(self, levels: int = 1_000) -> None:
        self.levels = levels

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        leaves: list[str] = []

        def walk(node: Any, depth: int = 0) -> None:
            if isinstance(node, (dict, list)) and depth >= self.levels:
                return
            if isinstance(node, dict):
                for value in node.values():
                    walk(value, depth + 1)
            elif isinstance(node, list):
                for value in node:
                    walk(value, depth + 1)
            elif isinstance(node, (str, float)):
                leaves.append(str(node))

        for message in request.messages:
            if message.role == "tool" and isinstance(message.content, str):
                try:
                    walk(json.loads(message.content))
                except ValueError:
                    continue
        old = (request.previous_summary or "").split("; ")
        kept: list[str] = []
        for item in [*reversed(leaves), *old]:
            trial = "; ".join([*kept, item])
            if item and request.token_counter.count_text(trial) <= request.max_tokens:
                kept.append(item)
        return done(SummaryOutput(text="; ".join(kept) or "-", summarizer=self.name))


def _summary_recall(summarizer: Any, seeds: int) -> float:
    probes, traces = run_trajectories(
        DEFAULT_CONFIG,
        seeds=range(seeds),
        turns=200,
        facts=20,
        counter=resolve_counter(model="gpt-4o"),
        progress=False,
        summarizer=summarizer,
        style="nested-tool",
    )
    assert not any(t.violations for t in traces)
    (c10, *_) = probe_rows(probes, seeds, cycles=(10,))
    recall: float = c10["summary_recall"]
    return recall


def test_nested_tool_credits_a_summarizer_only_for_what_it_reads_deep() -> None:
    # A reader of every leaf carries some of these facts, one that stops at three levels none;
    # the shipped summarizer reads every level and ranks fields by their value, and with its
    # value signals switched off it carries fewer.
    assert _summary_recall(_DeepReader(levels=3), 2) == 0.0
    assert _summary_recall(_DeepReader(), 2) >= 0.1
    shipped = _summary_recall(ExtractiveSummarizer(), 2)
    weak = ExtractiveSummarizer(ablate=("numbers", "codes", "time_words", "names"))
    assert _summary_recall(weak, 2) <= shipped - 0.1


def test_rejects_an_unknown_style_and_more_facts_than_its_frames_allow() -> None:
    with pytest.raises(ValueError, match="style"):
        generate_trajectory(0, turns=10, facts=2, style="oblique")
    with pytest.raises(ValueError, match="at most 60 facts"):
        generate_trajectory(0, turns=100, facts=61, style="indirect")
    with pytest.raises(ValueError, match="lists need 4 free turns each"):
        generate_trajectory(0, turns=10, facts=9, style="lists")
    with pytest.raises(ValueError, match="no corrections"):
        generate_trajectory(0, turns=100, facts=8, corrections=2, style="lists")


def _frame_of(text: str, kind: str) -> int:
    """Which of ``kind``'s list frames ``text`` was written in (by its fixed words)."""
    fixed = [
        [part for part in re.split(r"\{[abv]\}", frame.template) if part.strip()]
        for frame in LIST_FRAMES[kind]  # type: ignore[index]
    ]
    found = [i for i, parts in enumerate(fixed) if all(p in text for p in parts)]
    assert len(found) == 1, (text, found)
    return found[0]


@pytest.mark.parametrize("seed", range(6))
def test_lists_are_consecutive_user_turns_of_one_kind_in_one_frame(seed: int) -> None:
    traj = generate_trajectory(seed, turns=200, facts=20, style="lists")
    lists = [traj.facts[i : i + LIST_LENGTH] for i in range(0, 20, LIST_LENGTH)]
    assert sorted(items[0].kind for items in lists) == sorted(KINDS)  # one list per kind
    for items in lists:
        turns = [f.turn_index for f in items]
        assert turns == list(range(turns[0], turns[0] + LIST_LENGTH))
        assert all(f.role == "user" and f.kind == items[0].kind for f in items)
        texts = [message_text(traj.messages[f.message_index]) for f in items]
        assert len({_frame_of(t, items[0].kind) for t in texts}) == 1  # one shared frame
        assert len(set(texts)) == LIST_LENGTH  # but never the same sentence twice
        assert len({f.value for f in items}) == LIST_LENGTH
