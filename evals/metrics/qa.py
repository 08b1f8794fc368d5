"""Answer LoCoMo's questions with the memory as context, and grade them with an LLM judge.

Evidence retention says whether the memory still holds the turns an answer needs; this says
whether a model can answer from it. For each QA item of categories 1-4 (adversarial items have
no gold answer, and the published LoCoMo tables leave them out of the judged score), the
answering model gets the final view rendered as text (summary, then recent turns with their
speakers) and the question; the judge gets the question, the gold answer and the reply, and
labels it ``CORRECT`` or ``WRONG``. Both prompts are versioned YAML files in
``evals/metrics/prompts/``; both run at temperature 0 and go through the eval's client, so a
live run records every reply and a replay reproduces it with no key.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from evals.families.locomo import CATEGORY_NAMES, Conversation
from summem.clients.base import ChatCall, ChatRequest, LLMClient
from summem.messages import Message
from summem.retry import RetryPolicy

__all__ = ["JUDGED_CATEGORIES", "Judgement", "answer_and_judge", "judge_accuracy", "render_memory"]

JUDGED_CATEGORIES = (1, 2, 3, 4)
_PROMPTS = Path(__file__).with_name("prompts")
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([a-z_]+)\}")


@dataclass(frozen=True)
class _Prompt:
    name: str
    version: str
    parameters: dict[str, Any]
    messages: list[dict[str, str]]

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"

    def render(self, **values: str) -> list[dict[str, str]]:
        """Fill ``{name}`` placeholders in one pass: values are never scanned again."""

        def fill(match: re.Match[str]) -> str:
            token = match.group(0)
            if token in ("{{", "}}"):
                return token[0]
            return values[match.group(1)]

        return [
            {"role": m["role"], "content": _PLACEHOLDER.sub(fill, m["content"])}
            for m in self.messages
        ]


@cache
def _prompt(name: str) -> _Prompt:
    data = yaml.safe_load((_PROMPTS / f"{name}.yaml").read_text(encoding="utf-8"))
    return _Prompt(
        name=str(data["name"]),
        version=str(data["version"]),
        parameters=dict(data.get("parameters") or {}),
        messages=[{"role": str(m["role"]), "content": str(m["content"])} for m in data["messages"]],
    )


def prompt_refs() -> dict[str, str]:
    """``name@version`` of the answer and judge prompts, for reports."""
    return {"answer": _prompt("answer").ref, "judge": _prompt("judge").ref}


@dataclass(frozen=True)
class Judgement:
    """One question answered from the memory and graded.

    Attributes:
        qid: the QA item's id.
        category: LoCoMo's category (1-4).
        reply: what the answering model said.
        correct: the judge's label.
    """

    qid: str
    category: int
    reply: str
    correct: bool


def render_memory(view: Sequence[Message | Mapping[str, Any]]) -> str:
    """The view as the answering model reads it: one block per message, speaker first."""
    blocks: list[str] = []
    for item in view:
        msg = item.to_openai() if isinstance(item, Message) else dict(item)
        text = str(msg.get("content") or "")
        speaker = msg.get("name")
        blocks.append(f"{speaker}: {text}" if speaker else text)
    return "\n".join(blocks)


def _ask(
    client: LLMClient,
    model: str,
    messages: list[dict[str, str]],
    prompt: _Prompt,
    max_tokens: int = 256,
) -> str:
    request = ChatRequest(
        model=model,
        messages=[dict(m) for m in messages],
        parameters=dict(prompt.parameters),
        max_output_tokens=max_tokens,
    )
    return ChatCall(client, request, RetryPolicy()).run().text.strip()


def parse_label(reply: str) -> bool:
    """The judge's label: JSON ``{"label": ...}`` or a bare CORRECT/WRONG (WRONG wins ties)."""
    match = re.search(r"\{.*\}", reply, re.DOTALL)
    if match:
        try:
            label = json.loads(match.group(0)).get("label")
        except (json.JSONDecodeError, AttributeError):
            label = None
        if isinstance(label, str):
            return label.strip().upper() == "CORRECT"
    upper = reply.upper()
    return "CORRECT" in upper and "WRONG" not in upper


def answer_and_judge(
    conv: Conversation,
    view: Sequence[Message | Mapping[str, Any]],
    *,
    client: LLMClient,
    answer_model: str,
    judge_model: str,
    limit: int | None = None,
    max_tokens: int = 256,
) -> list[Judgement]:
    """Answer every judged question of ``conv`` from ``view``; grade each reply.

    Args:
        conv: the conversation whose questions are asked.
        view: the memory at the end of the conversation.
        client: performs the calls (live, recording or replaying).
        answer_model: answers the questions.
        judge_model: grades the answers.
        limit: ask at most this many questions (the first ones), to bound a live run's cost.
        max_tokens: the output cap of each answer and verdict.
    """
    memory = render_memory(view)
    answer, judge = _prompt("answer"), _prompt("judge")
    items = [q for q in conv.qa if q.category in JUDGED_CATEGORIES and q.answer is not None]
    out: list[Judgement] = []
    for q in items[:limit] if limit is not None else items:
        reply = _ask(
            client,
            answer_model,
            answer.render(memory=memory, question=q.question),
            answer,
            max_tokens,
        )
        verdict = _ask(
            client,
            judge_model,
            judge.render(question=q.question, gold=str(q.answer), answer=reply),
            judge,
            max_tokens,
        )
        out.append(Judgement(q.qid, q.category, reply, parse_label(verdict)))
    return out


def judge_accuracy(judgements: Sequence[Judgement]) -> dict[str, float | None]:
    """Share judged correct, per category name and over categories 1-4 (``"all"``)."""
    out: dict[str, float | None] = {}
    for number in JUDGED_CATEGORIES:
        chosen = [j for j in judgements if j.category == number]
        out[CATEGORY_NAMES[number]] = (
            sum(j.correct for j in chosen) / len(chosen) if chosen else None
        )
    out["all"] = sum(j.correct for j in judgements) / len(judgements) if judgements else None
    return out
