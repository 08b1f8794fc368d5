"""LoCoMo as typed data: turns, chat messages and QA items whose evidence ids can be trusted.

LoCoMo (Maharana et al., ACL 2024) gives 10 very long two-person conversations with 1,986 QA
items, each naming the turns (``dia_id`` such as ``"D3:14"``) that hold its answer. That lets
"is the evidence still in the memory?" be measured without a model. The file is CC BY-NC 4.0:
it is never copied into this repository; every entry point takes its path.

The release has flaws this module repairs so that metrics do not silently miscount:
evidence ids written as ``"D8:6; D9:17"``, ``"D9:1 D4:4 D4:6"``, ``"D:11:26"``, ``"D30:05"`` or a
bare ``"D"`` are normalised by :func:`normalize_evidence`; ids naming no turn of the conversation
are set aside in ``QAItem.unknown_evidence``; and the 57 ``WRONG_CITATION`` corrections of the
locomo-audit project can be applied with ``audit_path``.

Turns become chat messages with ``speaker_a`` as ``user`` and ``speaker_b`` as ``assistant``,
each with ``name`` set to the speaker. A strict user/assistant alternation is the shape summem
serves and the one its policies reason about ("keep the last N user turns", "cut only before a
user message"); two ``user`` roles would make every message a user turn. ``name`` keeps who said
what, which the questions depend on ("What did Caroline..."). The first message of each session
starts with the session's date (``"[1:56 pm on 8 May, 2023] "``), as temporal questions need it;
an image a speaker shared is kept as its caption (``"[shares an image: a photo of ...]"``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from summem.errors import ConfigurationError
from summem.formats.locomo import Turn, normalize_evidence, read_conversation, sanitize_name
from summem.messages import Message

__all__ = [
    "CATEGORY_NAMES",
    "AuditCorrection",
    "Conversation",
    "Observation",
    "QAItem",
    "Turn",
    "dia_id_of",
    "load_audit_corrections",
    "load_locomo",
    "locomo_file",
    "normalize_evidence",
    "sanitize_name",
]

CATEGORY_NAMES: dict[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
"""LoCoMo's categories, numbered as in its own evaluation code."""

_CANONICAL = re.compile(r"D[1-9]\d*:[1-9]\d*")


def dia_id_of(message_id: str) -> str | None:
    """The turn id inside a message id made by :meth:`Conversation.message_id`, else ``None``."""
    _, sep, tail = message_id.rpartition("/")
    return tail if sep and _CANONICAL.fullmatch(tail) else None


@dataclass(frozen=True)
class Observation:
    """One of LoCoMo's LLM-written facts about a speaker, tagged with its source turns."""

    speaker: str
    text: str
    dia_ids: tuple[str, ...]
    session: int


@dataclass(frozen=True)
class QAItem:
    """One question about a conversation.

    Attributes:
        qid: ``locomo_<conversation index>_qa<qa index>``, the audit's naming.
        question: the question.
        category: 1-5, see :data:`CATEGORY_NAMES`.
        answer: the gold answer as text; ``None`` for adversarial items.
        adversarial_answer: for category 5, the tempting wrong answer.
        evidence: normalised ids of the turns holding the answer (known turns only).
        raw_evidence: the evidence as written in the data.
        unknown_evidence: normalised ids naming no turn of the conversation.
        corrected: True when an audit correction replaced the evidence.
    """

    qid: str
    question: str
    category: int
    answer: str | None
    adversarial_answer: str | None
    evidence: tuple[str, ...]
    raw_evidence: tuple[str, ...]
    unknown_evidence: tuple[str, ...] = ()
    corrected: bool = False

    @property
    def category_name(self) -> str:
        """``"multi-hop"``, ``"temporal"``...; ``"category-N"`` for an unknown number."""
        return CATEGORY_NAMES.get(self.category, f"category-{self.category}")


@dataclass(frozen=True)
class Conversation:
    """One LoCoMo conversation, in order.

    Attributes:
        sample_id: e.g. ``"conv-26"``.
        index: position in the file (the audit's conversation index).
        speaker_a: the speaker mapped to ``user``.
        speaker_b: the speaker mapped to ``assistant``.
        turns: every turn, sessions in order.
        session_dates: session number -> date as written.
        qa: the questions.
        observations: LoCoMo's observation facts, in turn order.
        session_summaries: session number -> LoCoMo's summary of that session.
    """

    sample_id: str
    index: int
    speaker_a: str
    speaker_b: str
    turns: tuple[Turn, ...]
    session_dates: dict[int, str]
    qa: tuple[QAItem, ...]
    observations: tuple[Observation, ...] = ()
    session_summaries: dict[int, str] = field(default_factory=dict)

    def messages(self, *, timestamp_key: str | None = None) -> list[dict[str, Any]]:
        """Every turn as a chat-completions message (``messages()[i]`` is ``turns[i]``)."""
        return [t.to_openai(timestamp_key=timestamp_key) for t in self.turns]

    def message_objects(self, *, timestamp_key: str | None = None) -> list[Message]:
        """Every turn as a :class:`Message` whose id is :meth:`message_id`.

        Replaying these keeps a summary's provenance (message ids) readable as turns.
        """
        return [
            Message.from_openai(t.to_openai(timestamp_key=timestamp_key), id=self.message_id(t))
            for t in self.turns
        ]

    def message_id(self, turn: Turn) -> str:
        """A stable message id for ``turn``: ``"<sample_id>/<dia_id>"``."""
        return f"{self.sample_id}/{turn.dia_id}"

    @property
    def dia_ids(self) -> tuple[str, ...]:
        """Turn ids in order."""
        return tuple(t.dia_id for t in self.turns)

    def full_text(self) -> str:
        """All turns' message text, one per line: what a memory with no limit would hold."""
        return "\n".join(t.content for t in self.turns)


@dataclass(frozen=True)
class AuditCorrection:
    """A ``WRONG_CITATION`` fix from locomo-audit: the question it is about, the right turns."""

    question: str
    evidence: tuple[str, ...]


def load_audit_corrections(path: str | Path) -> dict[str, AuditCorrection]:
    """``question_id -> correction`` for the audit's ``WRONG_CITATION`` entries."""
    entries = json.loads(Path(path).read_text(encoding="utf-8"))
    return {
        str(e["question_id"]): AuditCorrection(
            question=str(e.get("question", "")),
            evidence=tuple(normalize_evidence(e.get("correct_evidence") or [])),
        )
        for e in entries
        if e.get("error_type") == "WRONG_CITATION"
    }


def locomo_file(path: str | Path) -> Path:
    """The dataset file: ``path`` itself, or ``locomo10.json`` in the folder ``path``.

    Raises:
        FileNotFoundError: a folder without ``locomo10.json`` in it.
    """
    file = Path(path)
    if file.is_dir():
        file = file / "locomo10.json"
        if not file.is_file():
            raise FileNotFoundError(f"{path} is a folder without locomo10.json in it")
    return file


def load_locomo(path: str | Path, *, audit_path: str | Path | None = None) -> list[Conversation]:
    """Read ``locomo10.json`` into :class:`Conversation` objects.

    Args:
        path: the dataset file (never copied; CC BY-NC 4.0), or the folder holding
            ``locomo10.json``.
        audit_path: locomo-audit's ``audit-errors.json``; when given, its ``WRONG_CITATION``
            corrections replace the cited evidence.

    Raises:
        FileNotFoundError: no such file, or a folder without ``locomo10.json``.
        ConfigurationError: the file is not LoCoMo's JSON (a list of conversations).
        ValueError: if a correction's question does not match the dataset's (another version
            of the file).
    """
    file = locomo_file(path)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigurationError(f"{file} is not LoCoMo's JSON: {exc}") from exc
    if not isinstance(data, list) or not all(isinstance(c, dict) for c in data):
        raise ConfigurationError(f"{file} is not LoCoMo's JSON: expected a list of conversations")
    corrections = load_audit_corrections(audit_path) if audit_path is not None else {}
    return [_conversation(i, raw, corrections) for i, raw in enumerate(data)]


def _conversation(
    index: int, raw: Mapping[str, Any], corrections: Mapping[str, AuditCorrection]
) -> Conversation:
    read = read_conversation(raw, index)
    turns, dates = read.turns, read.session_dates
    known = {t.dia_id for t in turns}
    qa = tuple(
        _qa_item(f"locomo_{index}_qa{i}", q, known, corrections) for i, q in enumerate(raw["qa"])
    )
    position = {t.dia_id: t.index for t in turns}
    observations = sorted(
        _observations(raw.get("observation") or {}),
        key=lambda o: max((position.get(d, -1) for d in o.dia_ids), default=-1),
    )
    summaries = {
        int(m.group(1)): str(text)
        for key, text in (raw.get("session_summary") or {}).items()
        if (m := re.match(r"session_(\d+)_summary$", key))
    }
    return Conversation(
        sample_id=str(raw.get("sample_id", f"conv-{index}")),
        index=index,
        speaker_a=read.speaker_a,
        speaker_b=read.speaker_b,
        turns=turns,
        session_dates=dates,
        qa=qa,
        observations=tuple(observations),
        session_summaries=summaries,
    )


def _qa_item(
    qid: str, q: Mapping[str, Any], known: set[str], corrections: Mapping[str, AuditCorrection]
) -> QAItem:
    raw_evidence = tuple(str(e) for e in q.get("evidence") or ())
    evidence = normalize_evidence(raw_evidence)
    correction = corrections.get(qid)
    if correction is not None:
        if correction.question != q["question"]:
            raise ValueError(
                f"audit correction for {qid} is about {correction.question!r}, the dataset asks "
                f"{q['question']!r}: the audit does not match this file"
            )
        evidence = list(correction.evidence)
    answer = q.get("answer")
    adversarial = q.get("adversarial_answer")
    return QAItem(
        qid=qid,
        question=str(q["question"]),
        category=int(q["category"]),
        answer=None if answer is None else str(answer),
        adversarial_answer=None if adversarial is None else str(adversarial),
        evidence=tuple(e for e in evidence if e in known),
        raw_evidence=raw_evidence,
        unknown_evidence=tuple(e for e in evidence if e not in known),
        corrected=correction is not None,
    )


def _observations(raw: Mapping[str, Any]) -> Iterable[Observation]:
    for key, by_speaker in raw.items():
        m = re.match(r"session_(\d+)_observation$", key)
        if not m or not isinstance(by_speaker, Mapping):
            continue
        for speaker, facts in by_speaker.items():
            for fact in facts or ():
                if not isinstance(fact, Sequence) or len(fact) < 2:
                    continue
                yield Observation(
                    speaker=str(speaker),
                    text=str(fact[0]),
                    dia_ids=tuple(normalize_evidence(fact[1])),
                    session=int(m.group(1)),
                )
