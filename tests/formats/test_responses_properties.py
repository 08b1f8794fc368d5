"""Property tests: random Responses item histories through the reducer, as for chat messages.

The histories mix user and assistant messages, reasoning items (some with encrypted content)
leading to a reply or to parallel function calls, outputs in any order (sometimes late, with a
message in between), a pending call at the end, system message changes and oversized messages.
After every item the reducer runs and the view, given back as items, must satisfy I2 (view =
system + summary + history[k:], k never backwards, originals unchanged), I3 (no output without
its call, no call without its arrived outputs, a reasoning item never separated from the item
after it) and the target budget whenever an allowed cut reaches it (the smallest such cut).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from summem.formats.responses import ITEM_META, to_items, to_messages
from summem.messages import Message
from summem.reducers.summarization import SummarizationReducer
from tests.fakes.counters import WordCounter, words
from tests.fakes.summarizers import FakeSummarizer

SETTINGS = settings(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@dataclass
class Options:
    unit: str
    threshold: int
    target: int


@st.composite
def options(draw: st.DrawFn) -> Options:
    unit = draw(st.sampled_from(["tokens", "messages"]))
    if unit == "tokens":
        threshold = draw(st.integers(60, 220))
        return Options(unit, threshold, draw(st.integers(30, threshold - 5)))
    threshold = draw(st.integers(6, 20))
    return Options(unit, threshold, draw(st.integers(3, threshold - 1)))


def _text(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def _reasoning(n: int, encrypted: bool) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "reasoning",
        "id": f"rs_{n}",
        "summary": [{"type": "summary_text", "text": words(3, "think")}],
    }
    if encrypted:
        item["encrypted_content"] = "gAAAA" + "x" * 40
    return item


@st.composite
def histories(draw: st.DrawFn) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    call_no = 0
    for _ in range(draw(st.integers(1, 25))):
        kind = draw(st.sampled_from(["user", "user", "reply", "calls", "system", "oversized"]))
        if kind == "user":
            if draw(st.booleans()):
                out.append({"role": "user", "content": words(draw(st.integers(1, 25)), "u")})
            else:
                out.append(_text("user", words(draw(st.integers(1, 25)), "u")))
        elif kind == "reply":
            if draw(st.booleans()):
                out.append(_reasoning(len(out), draw(st.booleans())))
            out.append(_text("assistant", words(draw(st.integers(1, 25)), "a")))
        elif kind == "oversized":
            out.append(_text("user", words(draw(st.integers(150, 400)), "big")))
        elif kind == "system":
            out.append({"role": "developer", "content": f"be brief {draw(st.integers(0, 2))}"})
        else:
            if draw(st.booleans()):
                out.append(_reasoning(len(out), draw(st.booleans())))
            ids = [f"c{call_no}_{j}" for j in range(draw(st.integers(1, 3)))]
            call_no += 1
            for cid in ids:
                out.append(
                    {"type": "function_call", "call_id": cid, "name": "f", "arguments": "{}"}
                )
            late = draw(st.booleans()) and len(ids) > 1
            for j, cid in enumerate(draw(st.permutations(ids))):
                if late and j == 1:
                    out.append(_text("user", "still there?"))
                text = words(draw(st.integers(1, 40)), "r")
                out.append({"type": "function_call_output", "call_id": cid, "output": text})
    if draw(st.booleans()):  # a pending call: its output has not arrived
        out.append(_reasoning(len(out), True))
        out.append({"type": "function_call", "call_id": "pending", "name": "f", "arguments": "1"})
    return out


def _valid_cuts(tail: list[dict[str, Any]]) -> list[int]:
    """Naive oracle on the items themselves: every cut the rules allow."""
    cuts = []
    for i in range(1, len(tail)):
        if tail[i - 1].get("type") == "reasoning":
            continue  # a reasoning item stays with the item after it
        ok = True
        for item in tail[:i]:
            if item.get("type") == "function_call":
                outputs = [
                    k
                    for k, other in enumerate(tail)
                    if other.get("type") == "function_call_output"
                    and other["call_id"] == item["call_id"]
                ]
                if not outputs or max(outputs) >= i:
                    ok = False
        if ok:
            cuts.append(i)
    return cuts


@SETTINGS
@given(opts=options(), history=histories())
def test_responses_invariants(opts: Options, history: list[dict[str, Any]]) -> None:
    fake = FakeSummarizer()
    kwargs: dict[str, Any] = {
        f"threshold_{opts.unit}": opts.threshold,
        f"target_{opts.unit}": opts.target,
    }
    if opts.unit == "tokens":
        kwargs["summary_max_tokens"] = min(8, opts.target - 1)
    reducer = SummarizationReducer(fake, token_counter=WordCounter(), **kwargs)
    view: list[Message] = []
    accepted: list[Message] = []
    system: Message | None = None
    watermark = 0
    for item in history:
        (msg,) = to_messages([item])
        if msg.is_system:
            if system is None or not system.same_content(msg):
                system = msg
        else:
            accepted.append(msg)
        before = [*view, msg]
        tail_before = [m for m in before if not m.is_system and not m.is_summary]
        result = reducer.reduce(before)
        view = result.view
        summary = result.summary

        # I2: [system] + [summary]? + history[k:], k never backwards, items unchanged.
        k = summary.summary_info.watermark if summary and summary.summary_info else 0
        assert k >= watermark
        watermark = k
        expected = ([system] if system else []) + ([summary] if summary else []) + accepted[k:]
        assert [m.id for m in view] == [m.id for m in expected]
        items = to_items(view)
        kept = [m.meta[ITEM_META] for m in accepted[k:]]
        assert json.dumps(items[len(items) - len(kept) :]) == json.dumps(kept)
        if summary is not None:
            assert items[int(system is not None)]["content"] == summary.content

        # I3 on the items: outputs with their calls, reasoning with what follows it.
        calls = {i["call_id"] for i in kept if i.get("type") == "function_call"}
        outputs = {i["call_id"] for i in kept if i.get("type") == "function_call_output"}
        assert outputs <= calls
        answered_later = {
            i["call_id"]
            for m in accepted[:k]
            for i in [m.meta[ITEM_META]]
            if i.get("type") == "function_call_output"
        }
        assert not (answered_later & calls)
        if k:
            assert accepted[k - 1].meta[ITEM_META].get("type") != "reasoning"

        # Budget: the smallest allowed cut that fits the target, else the largest allowed.
        if result.tokens_before <= opts.threshold:
            assert not result.reduced
            continue
        cuts = _valid_cuts([m.meta[ITEM_META] for m in tail_before])
        if not cuts:
            assert not result.reduced
            continue
        sizes = [reducer.size(m) for m in tail_before]
        fixed = reducer.head_size(system, None) + reducer.summary_reserve()
        fitting = [c for c in cuts if fixed + sum(sizes[c:]) <= opts.target]
        if fitting:
            assert len(result.evicted) == fitting[0]
            assert result.tokens_after <= opts.target
        else:
            assert len(result.evicted) == cuts[-1]
