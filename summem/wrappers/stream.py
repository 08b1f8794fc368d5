"""What the wrappers read from a provider's reply: the assistant message, its usage, streams.

Split from :mod:`summem.wrappers.openai` (the two-line entry points) so that module stays about how
a call goes through a memory. Here: turning a completion (an openai or litellm object, or a
dict) into the chat-completions message to record, rebuilding that message from streamed
chunks, and the stream proxies that record it once the stream has delivered all of it.

A reply is recorded once it is complete. A chunk with a ``finish_reason`` does not say so:
some servers send it on more than one chunk (litellm with Gemini, sglang: each tool-call chunk
marked ``tool_calls``), and some send a usage chunk after it that the request did not ask for
(OpenRouter). So at the first ``finish_reason`` the reply is parked, not recorded, and recorded
(once) at the first of: the end of the stream, the usage chunk the request asked for
(``stream_options={"include_usage": True}``), the stream's ``close()``, the memory's next
wrapped call (before its new messages), or the memory's ``close()``. So a caller that stops
reading at the finishing chunk (or at the helper's ``content.done`` event) keeps the reply.
A stream abandoned before its ``finish_reason`` (closed early, failing, or read no further)
records nothing, and neither does one that ends without one (a connection dropped before the
end, or a stream with no chunk at all): a half-written reply may end inside a tool call's
arguments, and a tool call that will never get its result would stay pending in the view for
good. The user's message, recorded before the call, stays; an application that shows partial
replies can ``memory.add`` one itself.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from typing import Any

from summem.formats.compaction import COMPACTION_BLOCKS
from summem.wrappers.passing import AsyncManaged, AsyncPassing, Managed, Passing, Proxy

__all__ = [
    "AsyncRecordingEventStreamManager",
    "AsyncRecordingStream",
    "AsyncStreamReply",
    "RecordingEventStreamManager",
    "RecordingStream",
    "StreamAccumulator",
    "StreamReply",
    "reply_message",
    "request_form",
    "usage_of",
]

Record = Callable[[dict[str, Any], "dict[str, Any] | None"], Any]
"""Records one assistant message with the provider's usage (sync)."""
AsyncRecord = Callable[[dict[str, Any], "dict[str, Any] | None"], Awaitable[Any]]
"""Records one assistant message with the provider's usage (async)."""


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def usage_of(obj: Any) -> dict[str, Any] | None:
    """The token counts a completion or a chunk reports, or ``None``."""
    usage = _get(obj, "usage")
    if usage is None:
        return None
    if hasattr(usage, "model_dump"):
        usage = usage.model_dump(exclude_none=True)
    if not isinstance(usage, dict):
        return None
    keep = ("prompt_tokens", "completion_tokens", "total_tokens")
    return {k: int(usage[k]) for k in keep if isinstance(usage.get(k), int)}


def _call_dict(call: Any) -> dict[str, Any]:
    fn = _get(call, "function")
    return {
        "id": str(_get(call, "id")),
        "type": _get(call, "type") or "function",
        "function": {"name": str(_get(fn, "name")), "arguments": _get(fn, "arguments") or ""},
    }


def _name(so_far: str, piece: Any) -> str:
    """A streamed function name with ``piece`` added.

    OpenAI sends the name once, in a call's first chunk; llama.cpp's server repeats the whole
    name in every chunk of the call, and some servers send the name so far. A piece that begins
    with what is already there replaces it; any other is appended (a name sent in pieces).
    """
    text = str(piece) if piece else ""
    return text if text.startswith(so_far) else so_far + text


def _plain(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    return dump(exclude_none=True) if callable(dump) else value


def _audio_dict(audio: Any) -> dict[str, Any] | None:
    """A reply's ``audio`` as the provider returned it, without the base64 ``data``."""
    audio = _plain(audio)
    if not isinstance(audio, dict) or not audio.get("id"):
        return None
    return {str(k): v for k, v in audio.items() if k != "data" and v is not None}


def _function_call_dict(call: Any) -> dict[str, Any] | None:
    """A legacy ``function_call`` reply as a chat-completions dict."""
    if call is None:
        return None
    return {"name": str(_get(call, "name") or ""), "arguments": _get(call, "arguments") or ""}


def reply_message(response: Any) -> dict[str, Any] | None:
    """The assistant message of a (non-streamed) completion, as a chat-completions dict.

    Content, tool calls, a ``refusal``, a legacy ``function_call`` and an ``audio`` reply are
    kept as the provider returned them, except the audio's base64 ``data`` (megabytes a turn,
    and a request has no place for it: the ``id`` names the audio). See :func:`request_form`
    for how the audio is stored.
    """
    choices = _get(response, "choices") or []
    if not choices:
        return None
    msg = _get(choices[0], "message")
    out: dict[str, Any] = {"role": "assistant", "content": _get(msg, "content")}
    calls = _get(msg, "tool_calls")
    if calls:
        out["tool_calls"] = [_call_dict(c) for c in calls]
    refusal = _get(msg, "refusal")
    if refusal:
        out["refusal"] = refusal
    function_call = _function_call_dict(_get(msg, "function_call"))
    if function_call is not None:
        out["function_call"] = function_call
    audio = _audio_dict(_get(msg, "audio"))
    if audio is not None:
        out["audio"] = audio
    elif out["content"] is None:  # audio with no id: nothing to name it by, its text kept
        out["content"] = _transcript(_plain(_get(msg, "audio")))
    blocks = compaction_blocks_of(msg)
    if blocks:  # Anthropic compacted (through litellm): the blocks go back with this turn
        out["provider_specific_fields"] = {COMPACTION_BLOCKS: blocks}
    return _with_content(out)


def compaction_blocks_of(msg: Any) -> list[dict[str, Any]]:
    """The Anthropic compaction blocks litellm put on a reply, as plain dicts, in order.

    A block with empty ``content`` is Anthropic's no-op (compaction failed): it is not kept,
    the history it would have stood for stays in the view (summem's twin covers it).
    """
    fields = _plain(_get(msg, "provider_specific_fields"))
    blocks = fields.get(COMPACTION_BLOCKS) if isinstance(fields, dict) else None
    if not isinstance(blocks, list):
        return []
    out = []
    for block in blocks:
        plain = _plain(block)
        if isinstance(plain, dict) and plain.get("type") == "compaction" and plain.get("content"):
            out.append(plain)
    return out


def _transcript(audio: Any) -> str | None:
    text = audio.get("transcript") if isinstance(audio, dict) else None
    return text if isinstance(text, str) and text else None


def _with_content(out: dict[str, Any]) -> dict[str, Any]:
    """``out``, with ``""`` as content when it carries nothing else to send."""
    if out["content"] is None and not any(
        out.get(k) for k in ("tool_calls", "refusal", "function_call", "audio")
    ):
        out["content"] = ""
    return out


def request_form(message: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A reply as it is stored and sent again, and what of it goes into its ``meta``.

    A request takes an earlier audio reply as ``audio: {"id": ...}`` only (OpenAI's request
    schema; the model's audio stays on its server until ``expires_at``), so the reply keeps
    the id, and its ``transcript`` and ``expires_at`` go into ``meta["audio"]``: stored,
    never sent, read by the summarizer (and, once ``expires_at`` has passed, sent as the
    reply's content instead of the id: see
    :func:`summem.reducers.style.expired_audio_as_text`). Anything else is returned as it is.
    """
    audio = message.get("audio")
    if not isinstance(audio, dict) or set(audio) <= {"id"}:
        return message, {}
    rest = {k: v for k, v in audio.items() if k != "id"}
    return {**message, "audio": {"id": audio["id"]}}, {"audio": rest}


class StreamAccumulator:
    """Rebuilds the assistant message from streamed chunks (content and tool-call deltas)."""

    def __init__(self) -> None:
        self.content: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        """The tool calls in the order they began (keys are summem's, not the deltas')."""
        self._open: dict[int, int] = {}  # a delta's index -> the call it continues
        self.usage: dict[str, Any] | None = None
        self.refusal: list[str] = []
        self.function_call: dict[str, str] | None = None
        self.audio: dict[str, Any] = {}
        self.transcript: list[str] = []
        self.finish_reason: str | None = None
        """Set by the chunk that ends the reply; a stream cut short never sets it."""
        self.compaction: Any = None
        """The compaction blocks so far, as a delta carrying them (litellm repeats the whole
        list per chunk; newer releases grow its last block's ``content`` with each delta)."""

    def _feed_compaction(self, fields: dict[str, Any]) -> None:
        """Anthropic compaction through litellm: the blocks, and their streamed content.

        litellm 1.110 sends the whole list with each ``compaction_delta``, its last block's
        ``content`` grown by it; older releases (1.108) send the list only when the block
        starts and each delta alone, so the deltas are added here.
        """
        blocks = fields.get(COMPACTION_BLOCKS)
        if blocks:
            copied = [_plain(b) for b in blocks] if isinstance(blocks, list) else blocks
            self.compaction = {"provider_specific_fields": {COMPACTION_BLOCKS: copied}}
            return
        piece = _plain(fields.get("compaction_delta"))
        text = piece.get("content") if isinstance(piece, dict) else None
        held = None
        if self.compaction is not None:
            held = self.compaction["provider_specific_fields"][COMPACTION_BLOCKS]
        if not isinstance(text, str) or not isinstance(held, list) or not held:
            return
        last = _plain(held[-1])
        if not isinstance(last, dict):
            return
        grown = {**last, "content": (last.get("content") or "") + text}
        self.compaction = {"provider_specific_fields": {COMPACTION_BLOCKS: [*held[:-1], grown]}}

    def feed(self, chunk: Any) -> None:
        """Take one chunk into account."""
        usage = usage_of(chunk)
        if usage:
            self.usage = usage
        for choice in _get(chunk, "choices") or []:
            if (_get(choice, "index") or 0) != 0:
                continue
            finish = _get(choice, "finish_reason")
            if finish:
                self.finish_reason = str(finish)
            delta = _get(choice, "delta")
            if delta is None:
                continue
            fields = _plain(_get(delta, "provider_specific_fields"))
            if isinstance(fields, dict):
                self._feed_compaction(fields)
            text = _get(delta, "content")
            if text:
                self.content.append(text)
            refusal = _get(delta, "refusal")
            if refusal:
                self.refusal.append(refusal)
            self._feed_legacy(_get(delta, "function_call"), _get(delta, "audio"))
            for call in _get(delta, "tool_calls") or []:
                slot = self._slot(_get(call, "index"), _get(call, "id"))
                fn = _get(call, "function")
                if fn is not None:
                    slot["function"]["name"] = _name(slot["function"]["name"], _get(fn, "name"))
                    slot["function"]["arguments"] += _get(fn, "arguments") or ""

    def _slot(self, index: Any, call_id: Any) -> dict[str, Any]:
        """The call a tool-call delta belongs to.

        By its ``index``; a delta naming a new ``id`` at an index already taken begins another
        call (servers that number every parallel call 0, or none: Ollama's OpenAI-compatible
        API, ollama/ollama#15457 and #7881; some gateways), one without an ``id`` continues the
        call its index last began.
        """
        at = index if isinstance(index, int) else 0
        key = self._open.get(at)
        slot = self.calls.get(key) if key is not None else None
        if slot is None or (call_id and slot["id"] and slot["id"] != call_id):
            key = len(self.calls)
            self._open[at] = key
            slot = self.calls[key] = {
                "id": "",
                "type": "function",
                "function": {"name": "", "arguments": ""},
            }
        if call_id:
            slot["id"] = call_id
        return slot

    def _feed_legacy(self, function_call: Any, audio: Any) -> None:
        """A ``function_call`` delta (name and arguments in pieces), an ``audio`` delta."""
        if function_call is not None:
            slot = self.function_call or {"name": "", "arguments": ""}
            slot["name"] = _name(slot["name"], _get(function_call, "name"))
            slot["arguments"] += _get(function_call, "arguments") or ""
            self.function_call = slot
        audio = _plain(audio)
        if isinstance(audio, dict):
            for key in ("id", "expires_at"):
                if audio.get(key) is not None:
                    self.audio[key] = audio[key]
            if audio.get("transcript"):
                self.transcript.append(str(audio["transcript"]))

    def message(self) -> dict[str, Any]:
        """The assistant message the stream carried (audio without its ``data``)."""
        out: dict[str, Any] = {"role": "assistant", "content": "".join(self.content) or None}
        if self.calls:
            out["tool_calls"] = list(self.calls.values())
        if self.refusal:
            out["refusal"] = "".join(self.refusal)
        if self.function_call is not None:
            out["function_call"] = self.function_call
        if self.audio.get("id"):
            out["audio"] = {**self.audio}
            if self.transcript:
                out["audio"]["transcript"] = "".join(self.transcript)
        elif out["content"] is None and self.transcript:  # no id: its text kept as content
            out["content"] = "".join(self.transcript)
        blocks = compaction_blocks_of(self.compaction) if self.compaction is not None else []
        if blocks:
            out["provider_specific_fields"] = {COMPACTION_BLOCKS: blocks}
        return _with_content(out)


# -- chunk streams: ``create(stream=True)``, ``litellm.completion(stream=True)`` -------------


class StreamReply:
    """A streamed reply being rebuilt, and how to record it: once, and only once finished.

    Apart from its stream so that a parked reply (see ``on_waiting`` below) can be recorded
    without keeping the stream and its connection alive. Thread-safe: two threads sharing one
    memory (one settling its parked replies, one reading the stream) record it once.
    """

    def __init__(self, record: Record) -> None:
        self.acc = StreamAccumulator()
        self._record = record
        self._lock = threading.Lock()
        self.done = False

    def finish(self) -> None:
        """Record the reply if its ``finish_reason`` came and it is not recorded yet."""
        with self._lock:
            if self.done or self.acc.finish_reason is None:  # recorded, or not a reply
                return
            self.done = True
        self._record(self.acc.message(), self.acc.usage)


class AsyncStreamReply:
    """The async twin of :class:`StreamReply` (one event loop: no lock needed)."""

    def __init__(self, record: AsyncRecord) -> None:
        self.acc = StreamAccumulator()
        self._record = record
        self.done = False

    async def finish(self) -> None:
        """Record the reply if its ``finish_reason`` came and it is not recorded yet."""
        if not self.done and self.acc.finish_reason is not None:  # else: not a reply
            self.done = True
            await self._record(self.acc.message(), self.acc.usage)


def _after_chunk(reply: Any, expect_usage: bool, parked: bool, on_waiting: Any) -> bool:
    """Whether the reply is complete now: its finish came, and the usage chunk it asked for.

    A finish alone is not the end (more finishing chunks, or a usage chunk not asked for, may
    follow): the reply is parked with ``on_waiting`` (unless ``parked`` already) and recorded
    at the end of the stream or later (see the module).
    """
    acc = reply.acc
    if acc.finish_reason is None or reply.done:
        return False
    if expect_usage and acc.usage is not None:
        return True
    if not parked and on_waiting is not None:
        on_waiting(reply)
    return False


class _Chunks:
    """What a chunk stream's items mean: the reply rebuilt, recorded once it is complete."""

    _reply: StreamReply | AsyncStreamReply
    _expect_usage: bool
    _on_waiting: Any
    _parked: bool = False

    def _took(self, chunk: Any) -> Callable[[], Any] | None:
        self._feed(chunk)
        reply = self._reply
        done = _after_chunk(reply, self._expect_usage, self._parked, self._on_waiting)
        self._parked = reply.acc.finish_reason is not None
        return reply.finish if done else None

    def _feed(self, chunk: Any) -> None:
        self._reply.acc.feed(chunk)


class RecordingStream(_Chunks, Passing):
    """A sync chunk stream, passed through; the reply is recorded once it is complete.

    Args:
        expect_usage: the request asked for a usage chunk, which follows the finishing ones
            (the reply is recorded when it comes).
        on_waiting: called with the :class:`StreamReply` at its first ``finish_reason`` (the
            reply is parked), so that a caller leaving the stream there still gets it recorded
            (the wrappers do it at the memory's next call and at its close).
    """

    _reply: StreamReply

    def __init__(
        self,
        stream: Any,
        record: Record,
        *,
        expect_usage: bool = False,
        on_waiting: Callable[[StreamReply], None] | None = None,
    ) -> None:
        self._inner = stream
        self._reply = StreamReply(record)
        self._expect_usage = expect_usage
        self._on_waiting = on_waiting

    def finish(self) -> None:
        """Record the reply if its ``finish_reason`` came and it is not recorded yet (once)."""
        self._reply.finish()


class AsyncRecordingStream(_Chunks, AsyncPassing):
    """An async chunk stream, passed through; the reply is recorded once it is complete."""

    _reply: AsyncStreamReply

    def __init__(
        self,
        stream: Any,
        record: AsyncRecord,
        *,
        expect_usage: bool = False,
        on_waiting: Callable[[AsyncStreamReply], None] | None = None,
    ) -> None:
        self._inner = stream
        self._reply = AsyncStreamReply(record)
        self._expect_usage = expect_usage
        self._on_waiting = on_waiting

    async def finish(self) -> None:
        """Record the reply if its ``finish_reason`` came and it is not recorded yet (once)."""
        await self._reply.finish()


# -- event streams: the openai SDK's ``chat.completions.stream(...)`` helper ----------------


class _ChunkEvents(_Chunks):
    """The helper's events, passed through; the reply is rebuilt from their ``chunk`` events.

    Not from ``get_final_completion()``: it raises on a ``length`` finish, where iterating
    the native stream does not.
    """

    def _feed(self, event: Any) -> None:
        if _get(event, "type") == "chunk":
            self._reply.acc.feed(_get(event, "chunk"))


class _RecordingEventStream(_ChunkEvents, RecordingStream):
    """The sync helper's stream (see :class:`_ChunkEvents`)."""

    def until_done(self) -> _RecordingEventStream:
        """Read the stream to its end (which records the reply)."""
        for _ in self:
            pass
        return self

    def get_final_completion(self) -> Any:
        """The SDK's final completion, once the stream is read (and the reply recorded)."""
        self.until_done()
        with self._quiet():
            return self._inner.get_final_completion()


class RecordingEventStreamManager(Managed, Proxy):
    """``with client.chat.completions.stream(...) as stream``: records the final reply."""

    def __init__(self, manager: Any, record: Record, *, expect_usage: bool = False) -> None:
        self._inner = manager
        self._record = record
        self._expect_usage = expect_usage

    def _open(self, stream: Any) -> _RecordingEventStream:
        return _RecordingEventStream(stream, self._record, expect_usage=self._expect_usage)


class _AsyncRecordingEventStream(_ChunkEvents, AsyncRecordingStream):
    """The async helper's stream (see :class:`_ChunkEvents`)."""

    async def until_done(self) -> _AsyncRecordingEventStream:
        """Read the stream to its end (which records the reply)."""
        async for _ in self:
            pass
        return self

    async def get_final_completion(self) -> Any:
        """The SDK's final completion, once the stream is read (and the reply recorded)."""
        await self.until_done()
        with self._quiet():
            return await self._inner.get_final_completion()


class AsyncRecordingEventStreamManager(AsyncManaged, Proxy):
    """``async with client.chat.completions.stream(...)``: records the final reply."""

    def __init__(self, manager: Any, record: AsyncRecord, *, expect_usage: bool = False) -> None:
        self._inner = manager
        self._record = record
        self._expect_usage = expect_usage

    async def __aenter__(self) -> Any:
        with self._quiet():  # the SDK's manager sends its request when entered
            inner = await self._inner.__aenter__()
        self._stream = _AsyncRecordingEventStream(
            inner, self._record, expect_usage=self._expect_usage
        )
        self._stream._secrets = self._secrets
        return self._stream
