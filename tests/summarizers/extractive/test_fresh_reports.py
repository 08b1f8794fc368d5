"""A tool's tenth result is a repeated report only if it says nothing new (``fresh_reports``).

Handmade texts, not the evals': a list tool run again and again showing other people's rows is
new information each time, while the tenth status report of a sensor (the same fields, new
numbers) is still discounted.
"""

from __future__ import annotations

import json
from typing import Any

from summem._flow import run_sync
from summem.messages import Message
from summem.summarizers.base import SummaryOutput, SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.summarizers.extractive.summarizer import HEURISTICS
from summem.tokens.base import ApproxCounter
from tests.summarizers.extractive.readback import full_lines

_PEOPLE = (
    ("Ines Barroso", "KX-4410"),
    ("Tobias Lindqvist", "RM-2207"),
    ("Marta Okafor", "PL-9031"),
    ("Yusuf Aydin", "QE-5528"),
    ("Helga Strand", "BT-6642"),
    ("Rafael Mendes", "WN-1379"),
    ("Annika Holm", "DZ-8815"),
    ("Piotr Zielinski", "HC-3096"),
    ("Leona Farrow", "MV-7724"),
    ("Caspar Wendt", "JU-2268"),
)


def _msg(id: str, content: str | None, role: str = "user", **extra: Any) -> Message:
    return Message.from_openai({"role": role, "content": content, **extra}, id=id)


def _call(id: str, call_id: str, name: str, args: dict[str, Any]) -> Message:
    tool_call = {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }
    return _msg(id, None, "assistant", tool_calls=[tool_call])


def _conversation() -> list[Message]:
    msgs: list[Message] = []
    for i, (name, badge) in enumerate(_PEOPLE):
        msgs.append(_call(f"a{i}", f"ka{i}", "visitor_log", {"desk": "front"}))
        entry = {"visitor": name, "badge": badge, "host": "facilities"}
        msgs.append(_msg(f"r{i}", json.dumps(entry), "tool", tool_call_id=f"ka{i}"))
        msgs.append(_call(f"b{i}", f"kb{i}", "sensor_status", {"room": "hall"}))
        status = {"humidity": 40 + i, "state": "ok", "checked_at": f"0{i % 9}:{10 + i}"}
        msgs.append(_msg(f"s{i}", json.dumps(status), "tool", tool_call_id=f"kb{i}"))
    return msgs


def _scores(ablate: tuple[str, ...] = ()) -> dict[str, float]:
    request = SummaryRequest(
        messages=_conversation(),
        previous_summary=None,
        max_tokens=2000,
        token_counter=ApproxCounter(),
    )
    out: SummaryOutput = run_sync(ExtractiveSummarizer(ablate=ablate).summarize(request))
    text = full_lines(out.text)
    return {text[e["line"]]: e["score"] for e in out.extra["provenance"]}


def _score(scores: dict[str, float], needle: str) -> float:
    return next(v for k, v in scores.items() if needle in k)


def test_the_tenth_list_of_new_names_keeps_its_score() -> None:
    assert "fresh_reports" in HEURISTICS
    on = _scores()
    first, tenth = _score(on, "Ines Barroso"), _score(on, "Caspar Wendt")
    assert tenth > 0.9 * first  # every name and code in it is new: not a repeated report
    off = _scores(("fresh_reports",))
    assert _score(off, "Caspar Wendt") < 0.5 * _score(off, "Ines Barroso")


def test_the_tenth_status_report_is_still_discounted() -> None:
    on = _scores()
    assert _score(on, "humidity=49") < 0.5 * _score(on, "humidity=40")  # numbers alone
    assert _score(on, "Caspar Wendt") > 2 * _score(on, "humidity=49")
