"""Reading a transcript for ``summem replay``: OpenAI JSON, JSONL, or LoCoMo, told apart.

A transcript is one of:

- a JSON list of chat-completions messages, or ``{"messages": [...]}``;
- JSONL, one message per line;
- LoCoMo's ``locomo10.json`` (a list of samples with ``conversation`` and ``qa``), read with
  :mod:`summem.formats.locomo`, the reader the evals use too, so the turns become the same
  messages. The dataset is CC BY-NC 4.0 and never bundled: its path is the argument.

Items may also be ``{"id": ..., "message": {...}, "meta": {...}}``, the shape that
``summem sessions export`` writes, so an exported session replays with its ids. The whole
transcript is validated before anything is stored (each message, then tool pairing and the
system rules, as a memory checks them), and every problem is one line naming the file and the
message's index and field.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from summem._message_checks import load_json
from summem.cli.common import EXIT_USAGE, CliError
from summem.errors import MessageValidationError
from summem.formats.locomo import is_locomo
from summem.messages import Message

__all__ = ["MAX_TRANSCRIPT_BYTES", "Transcript", "read_transcript"]

MAX_TRANSCRIPT_BYTES = 512 * 1024 * 1024


@dataclass
class Transcript:
    """Validated messages, ready to replay.

    Attributes:
        messages: in order, with ids when the input carried them.
        format: ``"json"``, ``"jsonl"`` or ``"locomo"``.
        name: a short name for the session id: the file's stem, or the LoCoMo sample id.
        path: the file.
        notes: what the reader decided for the user (which LoCoMo conversation, an exported
            empty assistant message replayed with content ``""``).
    """

    messages: list[Message]
    format: str
    name: str
    path: Path
    notes: list[str] = field(default_factory=list)


def _fail(message: str) -> CliError:
    return CliError(message, exit_code=EXIT_USAGE)


def read_transcript(path: Path, *, conversation: str | None = None) -> Transcript:
    """Read, detect and validate the transcript at ``path``.

    Args:
        path: the file.
        conversation: for LoCoMo, which conversation: an index or a ``sample_id``.

    Raises:
        CliError: exit code 2, one line naming the file and what is wrong.
    """
    try:
        if path.stat().st_size > MAX_TRANSCRIPT_BYTES:
            raise _fail(f"{path}: larger than {MAX_TRANSCRIPT_BYTES // 2**20} MiB")
        raw = path.read_bytes()
    except OSError as exc:
        raise _fail(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _fail(f"{path}: not UTF-8 text (byte {exc.start})") from None
    if not text.strip():
        raise _fail(f"{path}: the file is empty")
    data, fmt = _parse(path, text)
    if is_locomo(data):
        return _locomo(path, data, conversation)
    if conversation is not None:
        raise _fail(f"{path}: --conversation applies to LoCoMo files only")
    if isinstance(data, dict) and "messages" not in data and ("role" in data or "message" in data):
        data, fmt = [data], "jsonl"  # JSONL of a single line
    if isinstance(data, dict):
        if "messages" not in data:
            raise _fail(f'{path}: expected a list of messages or {{"messages": [...]}}')
        data = data["messages"]
    if not isinstance(data, list):
        raise _fail(f"{path}: expected a list of messages, got {_kind(data)}")
    if not data:
        raise _fail(f"{path}: no messages")
    messages, notes = _validated(path, data)
    return Transcript(messages, fmt, path.stem, path, notes)


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    return "a string" if isinstance(value, str) else type(value).__name__


def _parse(path: Path, text: str) -> tuple[Any, str]:
    try:
        return load_json(text, field="transcript"), "json"
    except MessageValidationError as exc:
        whole = exc.__cause__
        if not isinstance(whole, json.JSONDecodeError):  # too deep, a huge integer...
            raise _fail(f"{path}: {exc}") from None
        lines = [(i, line) for i, line in enumerate(text.splitlines(), 1) if line.strip()]
        if len(lines) < 2 or lines[0][1].strip() in ("[", "{"):
            raise _fail(
                f"{path}: not valid JSON: {whole.msg} (line {whole.lineno}, column {whole.colno})"
            ) from None
    items: list[Any] = []
    for lineno, line in lines:
        try:
            item = load_json(line, field="line")
        except MessageValidationError as exc:
            cause = exc.__cause__
            why = cause.msg if isinstance(cause, json.JSONDecodeError) else str(exc)
            raise _fail(f"{path}: line {lineno}: not valid JSON: {why}") from None
        if not isinstance(item, dict):
            raise _fail(f"{path}: line {lineno}: expected a message object, got {_kind(item)}")
        items.append(item)
    return items, "jsonl"


_EXPORTED = frozenset({"id", "message", "meta"})


def _item(item: Any, index: int) -> Message:
    if _exported(item):
        ident, meta = item.get("id"), item.get("meta")
        message = Message.from_openai(
            item["message"], id=ident if isinstance(ident, str) else None, index=index
        )
        return message.with_meta(**meta) if isinstance(meta, dict) and meta else message
    return Message.from_openai(item, index=index)


def _exported(item: Any) -> bool:
    return isinstance(item, dict) and "message" in item and set(item) <= _EXPORTED


def _emptied(messages: list[Message], items: Sequence[Any]) -> list[str]:
    """Give an exported assistant message with nothing to send the content ``""``.

    Older summem stored ``{"role": "assistant", "content": null}``; adding one is refused now
    (:func:`~summem.conversation.check_assistant_payload`), but an export of a stored session
    must replay. ``""`` is what such a message said; the note says which ones were changed.
    """
    from summem.conversation import check_assistant_payload

    changed = []
    for i, (msg, item) in enumerate(zip(messages, items, strict=True)):
        if msg.role != "assistant" or not _exported(item):
            continue
        try:
            check_assistant_payload(msg, i)
        except MessageValidationError:
            messages[i] = msg.model_copy(update={"content": ""})
            changed.append(f"[{i}]")
    if not changed:
        return []
    return [
        f"{len(changed)} exported assistant message(s) with no content ({', '.join(changed)}) "
        'replayed with content "": an older summem stored them, this one refuses to add an '
        "assistant message with nothing to send"
    ]


def _validated(path: Path, items: Sequence[Any]) -> tuple[list[Message], list[str]]:
    from summem.conversation import check_batch

    try:
        messages = [_item(item, i) for i, item in enumerate(items)]
        notes = _emptied(messages, items)
        # The checks a memory makes on add (tool pairing, summaries refused), on the whole
        # transcript first: a bad message at the end must not leave half a session behind.
        check_batch(messages, None, {}, {}, size=lambda _m: 0, single=False)
    except MessageValidationError as exc:
        raise _fail(f"{path}: {exc}") from None
    return messages, notes


# -- LoCoMo ----------------------------------------------------------------------------------


def _locomo(path: Path, data: list[Any], choice: str | None) -> Transcript:
    from summem.formats.locomo import read_conversation

    try:
        conversations = [read_conversation(raw, i) for i, raw in enumerate(data)]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise _fail(f"{path}: looks like LoCoMo but cannot be read as it: {exc!r}") from None
    index = _pick(path, conversations, choice)
    conv = conversations[index]
    notes = []
    if choice is None and len(conversations) > 1:
        notes.append(
            f"LoCoMo: {len(conversations)} conversations in the file; replaying #{index} "
            f"{conv.sample_id} (choose with --conversation N)"
        )
    messages, more = _validated(path, conv.message_objects())
    return Transcript(messages, "locomo", str(conv.sample_id), path, [*notes, *more])


def _pick(path: Path, conversations: Sequence[Any], choice: str | None) -> int:
    if choice is None:
        return 0
    if choice.isdigit():
        if int(choice) < len(conversations):
            return int(choice)
    else:
        for i, conv in enumerate(conversations):
            if conv.sample_id == choice:
                return i
    ids = ", ".join(str(c.sample_id) for c in conversations[:12])
    raise _fail(
        f"{path}: no conversation {choice!r}; give an index below {len(conversations)} "
        f"or a sample id ({ids})"
    )
