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

A file larger than :data:`STREAM_BYTES` in JSONL or as a JSON list is read as a stream: once
to validate it (keeping only the pending tool calls, the system message and a digest per id
the file gives), then again, message by message, by :meth:`Transcript.stream` as the replay
adds them. Memory stays bounded whatever the file's size. Smaller files, ``{"messages": [...]}``
and LoCoMo are read whole (up to :data:`MAX_TRANSCRIPT_BYTES`).
"""

from __future__ import annotations

import codecs
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from summem._message_checks import load_json
from summem.cli.common import EXIT_USAGE, CliError
from summem.errors import MessageValidationError
from summem.formats.locomo import is_locomo
from summem.messages import Message

__all__ = ["MAX_TRANSCRIPT_BYTES", "STREAM_BYTES", "Transcript", "read_transcript"]

MAX_TRANSCRIPT_BYTES = 512 * 1024 * 1024
"""The largest file read whole (``{"messages": [...]}``, LoCoMo); streamed ones have no cap."""

STREAM_BYTES = 4 * 1024 * 1024
"""From this size on, JSONL and a JSON list are read as a stream (twice: checked, replayed)."""

_CHUNK = 1000
"""Messages checked together (tool pairing, system rules) while streaming."""

_READ = 1 << 20
"""Characters read at a time from a streamed JSON list."""

Items = Callable[[], Iterator[tuple[int, Any]]]
"""A fresh iteration over a transcript's raw items, with their indexes."""


@dataclass
class Transcript:
    """A validated transcript, ready to replay.

    Attributes:
        format: ``"json"``, ``"jsonl"`` or ``"locomo"``.
        name: a short name for the session id: the file's stem, or the LoCoMo sample id.
        path: the file.
        count: how many messages it holds.
        items: its raw items, read again at each call (from the file, when streamed).
        notes: what the reader decided for the user (which LoCoMo conversation, an exported
            empty assistant message replayed with content ``""``).
        streamed: read as a stream (memory bounded whatever the size), not whole.
    """

    format: str
    name: str
    path: Path
    count: int
    items: Items
    notes: list[str] = field(default_factory=list)
    streamed: bool = False

    def stream(self) -> Iterator[Message]:
        """The messages in order (with ids when the input carried them), one at a time.

        Raises:
            CliError: the file changed since it was checked and no longer reads.
        """
        try:
            for i, item in self.items():
                yield _fixed(_item(item, i), item, i)
        except MessageValidationError as exc:  # checked already: the file changed meanwhile
            raise _fail(f"{self.path}: {exc} (the file changed during the replay?)") from None

    @property
    def messages(self) -> list[Message]:
        """Every message, in a list (for short transcripts; a long one: :meth:`stream`)."""
        return list(self.stream())


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
        size = path.stat().st_size
    except OSError as exc:
        raise _fail(f"{path}: cannot read: {exc.strerror or exc}") from None
    if size >= STREAM_BYTES:
        streamed = _streamed(path, conversation)
        if streamed is not None:
            return streamed
    try:
        if size > MAX_TRANSCRIPT_BYTES:
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
    return _whole(path, data, fmt, path.stem, [])


def _whole(path: Path, data: Sequence[Any], fmt: str, name: str, notes: list[str]) -> Transcript:
    """A transcript read whole: ``data`` checked, kept for :meth:`Transcript.stream`."""

    def items() -> Iterator[tuple[int, Any]]:
        return enumerate(data)

    count, more = _validated(path, items())
    return Transcript(fmt, name, path, count, items, [*notes, *more])


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


def _fixed(message: Message, item: Any, index: int, changed: list[int] | None = None) -> Message:
    """Give an exported assistant message with nothing to send the content ``""``.

    Older summem stored ``{"role": "assistant", "content": null}``; adding one is refused now
    (:func:`~summem.conversation.check_assistant_payload`), but an export of a stored session
    must replay. ``""`` is what such a message said; ``changed`` collects the indexes.
    """
    if message.role != "assistant" or not _exported(item):
        return message
    from summem.conversation import check_assistant_payload

    try:
        check_assistant_payload(message, index)
    except MessageValidationError:
        if changed is not None:
            changed.append(index)
        return message.model_copy(update={"content": ""})
    return message


def _emptied_note(changed: list[int]) -> list[str]:
    if not changed:
        return []
    shown = ", ".join(f"[{i}]" for i in changed[:20]) + (", ..." if len(changed) > 20 else "")
    return [
        f"{len(changed)} exported assistant message(s) with no content ({shown}) "
        'replayed with content "": an older summem stored them, this one refuses to add an '
        "assistant message with nothing to send"
    ]


def _validated(path: Path, items: Iterable[tuple[int, Any]]) -> tuple[int, list[str]]:
    """Check every message, in chunks; return how many there are, and the notes.

    The checks a memory makes on add (tool pairing, summaries refused, system rules), on the
    whole transcript first: a bad message at the end must not leave half a session behind.
    Only the pending calls, the system message and a digest per id the file gives are kept
    from one chunk to the next, so a streamed file is checked in bounded memory.
    """
    from summem.conversation import check_batch

    pending: dict[str, None] = {}
    system: Message | None = None
    given: dict[str, bytes] = {}
    changed: list[int] = []
    chunk: list[Message] = []
    count = 0

    def flush() -> None:
        nonlocal system
        offset = count - len(chunk)
        try:
            system = check_batch(chunk, system, pending, {}, size=lambda _m: 0, single=False).system
        except MessageValidationError as exc:
            at = None if exc.index is None else offset + exc.index
            raise type(exc)(exc.reason, index=at, field=exc.field) from None
        chunk.clear()

    try:
        for i, item in items:
            message = _fixed(_item(item, i), item, i, changed)
            if _exported(item) and isinstance(item.get("id"), str):
                digest = _digest(message)
                if given.setdefault(message.id, digest) != digest:
                    raise MessageValidationError(
                        f"id {message.id!r} is already stored for a different message; "
                        "leave the id out to store this one as new",
                        index=i,
                        field="id",
                    )
            chunk.append(message)
            count += 1
            if len(chunk) >= _CHUNK:
                flush()
        flush()
    except MessageValidationError as exc:
        raise _fail(f"{path}: {exc}") from None
    if not count:
        raise _fail(f"{path}: no messages")
    return count, _emptied_note(changed)


def _digest(message: Message) -> bytes:
    dump = json.dumps(message.model_dump(exclude_unset=True), sort_keys=True, default=str)
    return hashlib.blake2b(dump.encode("utf-8"), digest_size=16).digest()


# -- streamed files -----------------------------------------------------------------------------


def _streamed(path: Path, conversation: str | None) -> Transcript | None:
    """A large JSONL file or JSON list, checked as a stream; ``None``: read it whole."""
    head = _head(path)
    if head.startswith("{"):
        first = head.split("\n", 1)[0]
        try:
            item = load_json(first, field="line")
        except MessageValidationError:
            return None  # one object over several lines: {"messages": [...]}, read whole
        if not (isinstance(item, dict) and ("role" in item or "message" in item)):
            return None
        items: Items = lambda: _jsonl_items(path)  # noqa: E731
        fmt = "jsonl"
    elif head.startswith("["):
        first_item = next(_array_items(path), None)
        if first_item is None or is_locomo([first_item[1]]):
            return None  # LoCoMo (or empty): read whole
        items, fmt = (lambda: _array_items(path)), "json"
    else:
        return None
    if conversation is not None:
        raise _fail(f"{path}: --conversation applies to LoCoMo files only")
    count, notes = _validated(path, items())
    return Transcript(fmt, path.stem, path, count, items, notes, streamed=True)


def _head(path: Path) -> str:
    """The file's first characters, leading whitespace (and a BOM) left out."""
    try:
        with path.open("rb") as fh:
            raw = fh.read(1 << 16)
    except OSError as exc:
        raise _fail(f"{path}: cannot read: {exc.strerror or exc}") from None
    return codecs.getincrementaldecoder("utf-8-sig")(errors="ignore").decode(raw).lstrip()


def _open_text(path: Path) -> Any:
    try:
        return path.open(encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise _fail(f"{path}: cannot read: {exc.strerror or exc}") from None


def _jsonl_items(path: Path) -> Iterator[tuple[int, Any]]:
    """Each non-blank line's object, with its index among them."""
    index = 0
    with _open_text(path) as fh:
        try:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    item = load_json(line, field="line")
                except MessageValidationError as exc:
                    cause = exc.__cause__
                    why = cause.msg if isinstance(cause, json.JSONDecodeError) else str(exc)
                    raise _fail(f"{path}: line {lineno}: not valid JSON: {why}") from None
                if not isinstance(item, dict):
                    raise _fail(
                        f"{path}: line {lineno}: expected a message object, got {_kind(item)}"
                    )
                yield index, item
                index += 1
        except UnicodeDecodeError as exc:
            raise _fail(f"{path}: not UTF-8 text (near line {lineno + 1}: {exc.reason})") from None


def _array_items(path: Path) -> Iterator[tuple[int, Any]]:
    """Each element of a JSON list, read a chunk of the file at a time."""
    decoder = json.JSONDecoder()
    with _open_text(path) as fh:
        buf, pos, done, offset = "", 0, False, 0

        def more() -> bool:
            nonlocal buf, pos, done, offset
            try:
                text = fh.read(_READ)
            except UnicodeDecodeError as exc:
                raise _fail(f"{path}: not UTF-8 text ({exc.reason})") from None
            offset += pos
            buf, pos = buf[pos:] + text, 0
            done = not text
            return bool(text)

        def skip() -> str:
            nonlocal pos
            while True:
                while pos < len(buf) and buf[pos] in " \t\r\n":
                    pos += 1
                if pos < len(buf) or not more():
                    return buf[pos] if pos < len(buf) else ""

        if skip() != "[":
            raise _fail(f"{path}: not valid JSON: expected '['")
        pos += 1
        index = 0
        while True:
            c = skip()
            if c == "]" and index == 0:
                pos += 1
                break
            if index:
                if c == "]":
                    pos += 1
                    break
                if c != ",":
                    raise _fail(
                        f"{path}: not valid JSON: expected ',' or ']' at char {offset + pos}"
                    )
                pos += 1
                skip()
            while True:
                try:
                    _, end = decoder.raw_decode(buf, pos)
                    break
                except json.JSONDecodeError as exc:
                    if not more() and done:
                        raise _fail(
                            f"{path}: not valid JSON: {exc.msg} (char {offset + exc.pos})"
                        ) from None
            try:
                item = load_json(buf[pos:end], field="transcript")
            except MessageValidationError as exc:
                raise _fail(f"{path}: message {index}: {exc.reason}") from None
            pos = end
            if not isinstance(item, dict):
                raise _fail(
                    f"{path}: message {index}: expected a message object, got {_kind(item)}"
                )
            yield index, item
            index += 1
        if skip():
            raise _fail(f"{path}: not valid JSON: extra data after the list (char {offset + pos})")


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
    return _whole(path, conv.message_objects(), "locomo", str(conv.sample_id), notes)


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
