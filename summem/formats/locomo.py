"""LoCoMo's conversations as chat messages: the turns, who said them, and when.

LoCoMo (Maharana et al., ACL 2024) is a set of very long two-person conversations, distributed
as ``locomo10.json`` under CC BY-NC 4.0: summem never ships it; readers take its path. This
module turns one conversation into messages so that ``summem replay`` (installed, no source
checkout needed) and the evals see exactly the same messages.

Turns become chat messages with ``speaker_a`` as ``user`` and ``speaker_b`` as ``assistant``,
each with ``name`` set to the speaker: a strict user/assistant alternation is the shape summem
serves and reasons about ("keep the last N user turns"), and ``name`` keeps who said what. The
first message of each session starts with the session's date (``"[1:56 pm on 8 May, 2023] "``)
and an image a speaker shared is kept as its caption (``"[shares an image: a photo of ...]"``).
Each message's id is ``"<sample_id>/<dia_id>"`` (``"conv-26/D3:14"``), so a summary's provenance
reads as turns.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from summem.messages import Message

__all__ = [
    "LocomoConversation",
    "Turn",
    "is_locomo",
    "normalize_evidence",
    "read_conversation",
    "sanitize_name",
]

_EVIDENCE = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")
_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_SESSION_KEY = re.compile(r"session_(\d+)")


def normalize_evidence(raw: Iterable[str] | str) -> list[str]:
    """Canonical ``"D<session>:<turn>"`` ids from LoCoMo's evidence strings, in order, once each.

    Handles every malformation in the release: several ids in one string (``"D8:6; D9:17"``,
    ``"D9:1 D4:4 D4:6"``, ``"D26:14, D26:34"``), a stray colon (``"D:11:26"``), zero-padded
    numbers (``"D30:05"``); a string with no id (``"D"``) yields nothing.
    """
    items = [raw] if isinstance(raw, str) else list(raw)
    out: list[str] = []
    for item in items:
        for session, turn in _EVIDENCE.findall(str(item)):
            dia_id = f"D{int(session)}:{int(turn)}"
            if dia_id not in out:
                out.append(dia_id)
    return out


def sanitize_name(speaker: str) -> str:
    """A speaker as an OpenAI ``name`` (letters, digits, ``_`` and ``-``; at most 64)."""
    return _NAME_UNSAFE.sub("_", speaker.strip()).strip("_")[:64] or "speaker"


@dataclass(frozen=True)
class Turn:
    """One utterance.

    Attributes:
        dia_id: LoCoMo's id, ``"D<session>:<turn>"``.
        speaker: who said it.
        role: ``user`` for ``speaker_a``, ``assistant`` for ``speaker_b``.
        text: what was said.
        session: the session number (1-based).
        date_time: the session's date, as written in the data (``"1:56 pm on 8 May, 2023"``).
        index: position in the whole conversation (0-based).
        caption: the caption of an image shared with the turn, if any.
        first_in_session: True for a session's first turn (its message carries the date).
    """

    dia_id: str
    speaker: str
    role: Literal["user", "assistant"]
    text: str
    session: int
    date_time: str
    index: int
    caption: str | None = None
    first_in_session: bool = False

    @property
    def content(self) -> str:
        """The message text: date prefix (first turn of a session), text, image caption."""
        text = self.text
        if self.caption:
            text = f"{text} [shares an image: {self.caption}]"
        if self.first_in_session:
            text = f"[{self.date_time}] {text}"
        return text

    def to_openai(self, *, timestamp_key: str | None = None) -> dict[str, Any]:
        """The turn as a chat-completions message.

        Args:
            timestamp_key: also put the session date under this key (a provider extra, e.g.
                ``"timestamp"``, which summem's extractive summarizer reads to date its facts).
                Off by default: a provider may refuse keys it does not know.
        """
        message = {"role": self.role, "content": self.content, "name": sanitize_name(self.speaker)}
        if timestamp_key:
            message[timestamp_key] = self.date_time
        return message


@dataclass(frozen=True)
class LocomoConversation:
    """One conversation's turns, in order.

    Attributes:
        sample_id: e.g. ``"conv-26"``.
        speaker_a: the speaker mapped to ``user``.
        speaker_b: the speaker mapped to ``assistant``.
        turns: every turn, sessions in order.
        session_dates: session number -> date as written.
    """

    sample_id: str
    speaker_a: str
    speaker_b: str
    turns: tuple[Turn, ...]
    session_dates: dict[int, str]

    def message_id(self, turn: Turn) -> str:
        """A stable message id for ``turn``: ``"<sample_id>/<dia_id>"``."""
        return f"{self.sample_id}/{turn.dia_id}"

    def messages(self, *, timestamp_key: str | None = None) -> list[dict[str, Any]]:
        """Every turn as a chat-completions message (``messages()[i]`` is ``turns[i]``)."""
        return [t.to_openai(timestamp_key=timestamp_key) for t in self.turns]

    def message_objects(self, *, timestamp_key: str | None = None) -> list[Message]:
        """Every turn as a :class:`~summem.messages.Message` whose id is :meth:`message_id`."""
        return [
            Message.from_openai(t.to_openai(timestamp_key=timestamp_key), id=self.message_id(t))
            for t in self.turns
        ]


def is_locomo(data: Any) -> bool:
    """True for LoCoMo's file shape: a list of samples with ``conversation`` and ``qa``."""
    return (
        isinstance(data, list)
        and bool(data)
        and isinstance(data[0], dict)
        and "conversation" in data[0]
        and "qa" in data[0]
    )


def read_conversation(raw: Mapping[str, Any], index: int = 0) -> LocomoConversation:
    """One sample of ``locomo10.json`` (a parsed JSON object) as a conversation.

    Raises:
        KeyError, TypeError, ValueError: the sample is not shaped like LoCoMo's.
    """
    conv = raw["conversation"]
    speaker_a, speaker_b = str(conv["speaker_a"]), str(conv["speaker_b"])
    sessions = sorted(
        int(m.group(1)) for key in conv if (m := _SESSION_KEY.fullmatch(key)) and conv[key]
    )
    dates = {s: str(conv.get(f"session_{s}_date_time", "")) for s in sessions}
    turns: list[Turn] = []
    for s in sessions:
        for j, t in enumerate(conv[f"session_{s}"]):
            caption = t.get("blip_caption")
            turns.append(
                Turn(
                    dia_id=(normalize_evidence(str(t["dia_id"])) or [str(t["dia_id"])])[0],
                    speaker=str(t["speaker"]),
                    role="assistant" if t["speaker"] == speaker_b else "user",
                    text=str(t["text"]),
                    session=s,
                    date_time=dates[s],
                    index=len(turns),
                    caption=str(caption) if caption else None,
                    first_in_session=j == 0,
                )
            )
    return LocomoConversation(
        sample_id=str(raw.get("sample_id", f"conv-{index}")),
        speaker_a=speaker_a,
        speaker_b=speaker_b,
        turns=tuple(turns),
        session_dates=dates,
    )
