"""Messages in the OpenAI chat-completions shape, validated once and given back unchanged.

The chat-completions dict is summem's lingua franca. :class:`Message` validates it (roles,
content parts, tool calls), keeps every field it does not know (provider extras) and gives the
same dict back from :meth:`Message.to_openai`. summem's own bookkeeping (a stable id, the
summary marker with its provenance, cached token counts) lives in private attributes that are
never part of that dict, so it can never reach a provider.
"""

from __future__ import annotations

import copy
import os
import random
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from summem._message_checks import check_message, check_values, expect_batch
from summem.errors import MessageValidationError

__all__ = [
    "GLUED_TO_NEXT",
    "IN_PLACE",
    "MODEL_REPLY",
    "PROVIDER_ITEM",
    "Message",
    "MessageLike",
    "Role",
    "SDKMessage",
    "SummaryInfo",
    "assistant",
    "copy_json",
    "new_message_id",
    "parse_message",
    "parse_messages",
    "sdk_message_dict",
    "system",
    "tool",
    "user",
]

Role = Literal["system", "developer", "user", "assistant", "tool"]

GLUED_TO_NEXT = "glued_to_next"
"""``meta`` key: ``True`` on a message that must stay in the group of the message after it.

Set on a Responses ``reasoning`` item (see :mod:`summem.formats.responses`): the model needs it
with the call or reply it led to, so no cut falls right after it.
"""


IN_PLACE = "in_place"
"""``meta`` key: ``True`` on a ``system`` / ``developer`` message that is ordinary history.

Such a message stays where it arrived (a Responses item in the middle of an Agents SDK session,
an agent's mid-run note): it is not the session's head system message, so it is neither moved
to the front nor replaced by a later one (:attr:`Message.is_system` is ``False`` for it).
"""


PROVIDER_ITEM = "provider_item"
"""``meta`` key: on a message holding an item only its provider can read, what it is.

A dict ``{"provider": "openai" | "anthropic", "kind": "compaction", "id": <the item's id or
None>}``: a provider's compaction item (see :mod:`summem.formats.compaction`). Such a message is
stored and given back as it came, sent only to the provider that made it, and never summarized
into text. With ``"carried": True`` the item is not in the message's chat form but in a
framework's own record of it (a pydantic-ai ``CompactionPart``): the framework sends it, summem
writes its twin.
"""


MODEL_REPLY = "model_reply"
"""``meta`` key: ``True`` on a message summem recorded from a model's response.

Set by the wrappers (chat completions and Responses) on what they record from a provider's
reply. ``record()`` takes it as proof that a list resending it is the whole conversation (an
edit, a regenerate or a rewind then branches); an assistant message the caller wrote itself (a
fixed greeting, few-shot examples) is no such proof.
"""


class _IdSource:
    """96-bit ids from a generator seeded with 128 bits from ``os.urandom``, per process.

    The process id is checked on every draw and the generator reseeded when it changed: a
    process forked from C (uWSGI's pre-fork mode runs no fork hooks) would otherwise hand out
    its parent's ids. Not ``os.urandom`` per id: that call releases the GIL, so in background
    mode each new message could wait a whole switch interval (5 ms) for the worker thread.
    Ids are unique, not secret.
    """

    __slots__ = ("pid", "rng")

    def __init__(self) -> None:
        self.pid = -1
        self.rng = random.Random()

    def draw(self) -> int:
        pid = os.getpid()
        if pid != self.pid:
            self.rng.seed(os.urandom(16))
            self.pid = pid
        return self.rng.getrandbits(96)


_ids = _IdSource()


def new_message_id() -> str:
    """A new, globally unique message id (``m_`` and 96 random bits in hex)."""
    return f"m_{_ids.draw():024x}"


class SummaryInfo(BaseModel):
    """Provenance of a summary message; summem metadata, never sent to a provider."""

    # built on first use, not at import (``import summem`` stays light)
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    covered_ids: tuple[str, ...] = ()
    """Ids of the messages this reduction folded in (the span ``history[k:k']``)."""
    previous_summary_id: str | None = None
    """Id of the summary this one replaced and integrated, if any."""
    watermark: int = 0
    """``k'``: the number of history messages this summary stands for."""
    summarizer: str = "unknown"
    """Which summarizer wrote it, e.g. ``"extractive"`` or ``"llm:gpt-4o-mini"``."""
    model: str | None = None
    prompt: str | None = None
    """``name@version`` of the prompt, for LLM summaries."""
    prompt_hash: str | None = None
    tokens: int = 0
    """Size of the summary message under the reducer's token counter."""
    created_at: datetime = Field(default_factory=lambda: datetime.now(timezone.utc))
    extra: dict[str, Any] = Field(default_factory=dict)
    """Anything a summarizer wants to keep, e.g. provenance of extracted facts."""

    @field_validator("covered_ids")
    @classmethod
    def _each_once(cls, ids: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(ids)) != len(ids):
            seen: set[str] = set()
            for i in ids:
                if i in seen:
                    raise ValueError(f"covers {i!r} twice: a message is covered once")
                seen.add(i)
        return ids


class Message(BaseModel):
    """One chat-completions message.

    Build it from a dict with :func:`parse_message` (or ``Message.from_openai``) and give it back
    with :meth:`to_openai`; the round trip is lossless, provider extras included.
    """

    model_config = ConfigDict(frozen=True, extra="allow", defer_build=True)

    role: Role
    content: str | list[dict[str, Any]] | None = None
    name: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    tool_call_id: str | None = None

    if not TYPE_CHECKING:  # mypy keeps the pydantic plugin's typed signature

        def __init__(self, /, **data: Any) -> None:
            """Build from fields, with :meth:`from_openai`'s checks.

            pydantic's types alone allow values no store can keep, such as a 5,000-digit
            integer in an extra field.

            Raises:
                MessageValidationError: naming the field at fault.
            """
            check_message(data, None)
            super().__init__(**data)

    # summem's bookkeeping (id, summary marker, token cache, meta) lives in pydantic's private
    # slot, managed here rather than through PrivateAttr: pydantic's private-attribute set-up
    # costs more than validating the message itself, and every turn builds one.

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def from_openai(
        cls, data: MessageLike, *, id: str | None = None, index: int | None = None
    ) -> Message:
        """Validate one chat-completions dict (or an openai SDK message object).

        Args:
            data: the message dict; it is copied, never kept or changed.
            id: a stable id to give it; a new one is made when omitted.
            index: the message's position in its batch, for error messages.

        Raises:
            MessageValidationError: naming the index and the field at fault.
        """
        if type(data) is dict:  # the common case: a flat dict of strings skips pydantic
            flat = _flat_message(data, id) if cls is Message else None
            if flat is not None:
                return flat
        else:
            if isinstance(data, Message):
                return data if id is None or id == data.id else data.with_id(id)
            if not isinstance(data, Mapping):
                data = sdk_message_dict(data)
            if not isinstance(data, Mapping):
                raise MessageValidationError(
                    f"expected a mapping (a chat-completions dict), got {type(data).__name__}",
                    index=index,
                )
        return cls._validated(data, id, index)

    @classmethod
    def _validated(cls, data: Mapping[str, Any], id: str | None, index: int | None) -> Message:
        """The full path of :meth:`from_openai`: summem's checks, then pydantic's validator."""
        data = _without_empty_calls(data)
        nested = check_message(data, index)
        # Nothing of the caller's is kept: nested values are copied; a plain dict of scalars
        # needs no copy (the model keeps its own dicts, and scalars are immutable).
        own = data if not nested and type(data) is dict else copy_json(data)
        try:
            # the validator itself: ``model_validate`` only wraps it (a quarter of its cost here)
            msg: Message = cls.__pydantic_validator__.validate_python(own)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"][:2]) or None
            raise MessageValidationError(err["msg"], index=index, field=field) from None
        private = _private(id or new_message_id())
        if not _in_dump_order(data):
            private["_keys"] = tuple(data)  # to_openai gives the keys back in this order
        object.__setattr__(msg, "__pydantic_private__", private)
        return msg

    def _priv(self) -> dict[str, Any]:
        private: dict[str, Any] | None = self.__pydantic_private__
        if private is None:  # built without from_openai (e.g. Message(role=..., content=...))
            private = _private(new_message_id())
            object.__setattr__(self, "__pydantic_private__", private)
        return private

    def _clone(self, **private: Any) -> Message:
        clone = self.model_copy()
        mine = self._priv()
        state = {
            "_id": mine["_id"],
            "_summary": mine["_summary"],
            "_token_cache": dict(mine["_token_cache"]),
            "_meta": dict(mine["_meta"]),
            "_keys": mine["_keys"],
        }
        state.update(private)
        object.__setattr__(clone, "__pydantic_private__", state)
        return clone

    def with_id(self, id: str) -> Message:
        """A copy of this message carrying ``id`` (and the same summary marker)."""
        return self._clone(_id=id, _token_cache={})

    def as_summary(self, info: SummaryInfo) -> Message:
        """A copy of this message marked as a summary, with its provenance."""
        return self._clone(_summary=info)

    def with_meta(self, **values: Any) -> Message:
        """A copy (same id) with ``values`` merged into :attr:`meta`.

        Raises:
            MessageValidationError: a value is not strict JSON (see ``check_values``).
        """
        check_values({"meta": values}, None)
        return self._clone(_meta={**self._priv()["_meta"], **values})

    # -- summem metadata ------------------------------------------------------------------

    @property
    def id(self) -> str:
        """Stable id, assigned once; never sent to a provider."""
        return (self.__pydantic_private__ or self._priv())["_id"]  # type: ignore[no-any-return]

    @property
    def summary_info(self) -> SummaryInfo | None:
        """Provenance, when this message is a summary written by summem."""
        return (self.__pydantic_private__ or self._priv())["_summary"]  # type: ignore[no-any-return]

    @property
    def is_summary(self) -> bool:
        """True when summem wrote this message as a summary."""
        return (self.__pydantic_private__ or self._priv())["_summary"] is not None

    @property
    def is_system(self) -> bool:
        """True for ``system`` and ``developer`` messages (treated alike), except in place ones.

        A message marked :data:`IN_PLACE` is ordinary history, whatever its role.
        """
        if self.role not in ("system", "developer"):
            return False
        return not (self.__pydantic_private__ or self._priv())["_meta"].get(IN_PLACE)

    @property
    def meta(self) -> dict[str, Any]:
        """Annotations of summem's own, JSON-serialisable, stored, never sent to a provider.

        For example the provider's usage for a reply, or when the message was added.
        """
        return (self.__pydantic_private__ or self._priv())["_meta"]  # type: ignore[no-any-return]

    @property
    def token_cache(self) -> dict[str, int]:
        """Per-counter token counts, filled by token counters; not part of the message."""
        return (self.__pydantic_private__ or self._priv())["_token_cache"]  # type: ignore[no-any-return]

    # -- views ----------------------------------------------------------------------------

    def to_openai(self) -> dict[str, Any]:
        """The chat-completions dict, exactly as given (extras and key order), as a fresh copy."""
        if self.tool_calls is None and type(self.content) is not list:
            extra = self.__pydantic_extra__
            if not extra:  # every value a string or None: a new dict is a fresh copy
                return self.openai_fields()
        data: dict[str, Any] = self.model_dump(exclude_unset=True)  # fresh all the way down
        keys = (self.__pydantic_private__ or self._priv())["_keys"]
        if keys is not None and data.keys() == set(keys):
            data = {k: data[k] for k in keys}
        return data

    def openai_fields(self) -> dict[str, Any]:
        """:meth:`to_openai`'s keys and values, the values shared with this message, not copied.

        For callers that copy what they keep (the view's renderer freezes it): it spares the
        serializer's deep copy. Do not change the values.
        """
        values = self.__dict__
        fields_set = self.__pydantic_fields_set__
        data = {k: values[k] for k in _FIELD_NAMES if k in fields_set}
        extra = self.__pydantic_extra__
        if extra:
            data.update(extra)
        keys = (self.__pydantic_private__ or self._priv())["_keys"]
        if keys is not None and data.keys() == set(keys):
            data = {k: data[k] for k in keys}
        return data

    @property
    def text(self) -> str:
        """The plain text of the content: the string, or the text parts joined by newlines."""
        if self.content is None:
            return ""
        if isinstance(self.content, str):
            return self.content
        return "\n".join(
            str(p.get("text", p.get("refusal", "")))
            for p in self.content
            if p.get("type") in ("text", "refusal")
        )

    @property
    def tool_call_ids(self) -> tuple[str, ...]:
        """Ids of this assistant message's tool calls (empty when it has none)."""
        if not self.tool_calls:
            return ()
        return tuple(str(c["id"]) for c in self.tool_calls)

    def same_content(self, other: Message) -> bool:
        """True when both messages would be sent identically (ids and markers aside)."""
        return self.model_dump(exclude_unset=True) == other.model_dump(exclude_unset=True)

    def __repr__(self) -> str:
        text = self.text
        short = text if len(text) <= 40 else text[:37] + "..."
        extra = f", tool_calls={len(self.tool_calls)}" if self.tool_calls else ""
        mark = ", summary" if self.is_summary else ""
        return f"Message(role={self.role!r}, content={short!r}{extra}{mark}, id={self.id!r})"

    __str__ = __repr__


class SDKMessage(Protocol):
    """An openai SDK message object, such as ``response.choices[0].message`` (pydantic)."""

    def model_dump(self, *, exclude_none: bool = ...) -> dict[str, Any]:
        """The message as a dict."""
        ...


MessageLike = Message | Mapping[str, Any] | SDKMessage


_SCALARS = (str, int, float, bool, type(None))


def copy_json(value: Any) -> Any:
    """A deep copy of JSON-like data: dicts and lists rebuilt, scalars shared.

    Several times cheaper than ``copy.deepcopy``; views are copied on every turn.
    """
    kind = type(value)
    if kind is dict or (kind not in _SCALARS and isinstance(value, Mapping)):
        return {k: v if type(v) in _SCALARS else copy_json(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _SCALARS else copy_json(v) for v in value]
    if kind in _SCALARS:
        return value
    return copy.deepcopy(value)


_FIELD_NAMES: tuple[str, ...] = tuple(Message.model_fields)
_FIELD_ORDER: dict[str, int] = {name: i for i, name in enumerate(_FIELD_NAMES)}


def _in_dump_order(data: Mapping[str, Any]) -> bool:
    """True when ``model_dump`` gives ``data``'s keys back in the same order.

    It lists the declared fields in declaration order, then the extras in input order.
    """
    last = 0
    for key in data:
        position = _FIELD_ORDER.get(key, len(_FIELD_ORDER))
        if position < last:
            return False
        last = position
    return True


def _without_empty_calls(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """``data`` without ``tool_calls`` when it is an empty list on an assistant message.

    ``tool_calls: []`` means "no tool calls" (some SDK dumps and clients send it), but OpenAI
    rejects it in a request (400 ``empty_array``: "Expected an array with minimum length 1").
    It is dropped when the message is parsed, on add and on reload alike, so neither a new
    message nor one an older summem stored with it sends it again. An assistant message left
    with no content and no tool calls is then refused on add, as any other one is.
    """
    calls = data.get("tool_calls")
    if type(calls) is not list or calls or data.get("role") != "assistant":
        return data
    return {k: v for k, v in data.items() if k != "tool_calls"}


def _private(id: str) -> dict[str, Any]:
    return {"_id": id, "_summary": None, "_token_cache": {}, "_meta": {}, "_keys": None}


_FLAT_FIELDS = frozenset(("role", "content", "name", "tool_call_id"))
_FLAT_ROLES = frozenset(("system", "developer", "user", "assistant", "tool"))
_new_model = Message.__new__
_set = object.__setattr__


def _flat_message(data: dict[str, Any], id: str | None) -> Message | None:
    """``data`` as a :class:`Message` without pydantic's validator, when it is flat and valid.

    The fast lane of :meth:`Message.from_openai` for the common message: an exact ``dict``
    whose keys are among ``role``, ``content``, ``name`` and ``tool_call_id`` (exact ``str``
    keys), every value an exact ``str`` that UTF-8 can encode, the role known, and
    ``tool_call_id`` present (non-empty) exactly when the role is ``tool``. Such a message
    passes every check of the full path, and the model built here equals the one pydantic
    builds (same fields, fields set, extras and key order; tests compare them). Anything else
    returns ``None``, and the caller takes the full path, which raises its usual errors.
    """
    fields = _FLAT_FIELDS
    for key, value in data.items():
        if type(value) is not str or type(key) is not str or key not in fields:
            return None
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return None  # a lone surrogate: the full path names the field
    role = data.get("role")
    content = data.get("content")
    if role not in _FLAT_ROLES or content is None:
        return None
    call_id = data.get("tool_call_id")
    if (not call_id) if role == "tool" else "tool_call_id" in data:
        return None  # missing (or empty) on a tool result, or present on another role
    msg = _new_model(Message)
    _set(
        msg,
        "__dict__",
        {
            "role": role,
            "content": content,
            "name": data.get("name"),
            "tool_calls": None,
            "tool_call_id": call_id,
        },
    )
    _set(msg, "__pydantic_fields_set__", set(data))
    _set(msg, "__pydantic_extra__", {})
    private = _private(id or new_message_id())
    if not _in_dump_order(data):
        private["_keys"] = tuple(data)
    _set(msg, "__pydantic_private__", private)
    return msg


def sdk_message_dict(message: Any) -> Any:
    """An SDK message object (``response.choices[0].message``) as a chat-completions dict.

    Anything else comes back as it is. ``None`` fields and empty lists (``annotations: []``)
    are left out, as the provider would not send them in a dict either.
    """
    dump = None if isinstance(message, Mapping) else getattr(message, "model_dump", None)
    if not callable(dump):
        return message
    dumped = dump(exclude_none=True)
    if not isinstance(dumped, dict):
        return message
    out = {k: v for k, v in dumped.items() if v != []}
    if "content" not in out and hasattr(message, "content"):
        out["content"] = None  # beside tool calls, as the API returned it
    return out


def parse_message(item: MessageLike, *, index: int | None = None) -> Message:
    """Validate one message (a dict, an openai SDK message object or a :class:`Message`)."""
    if type(item) is dict:  # Message.from_openai's fast lane, one call sooner
        flat = _flat_message(item, None)
        if flat is not None:
            return flat
    return Message.from_openai(item, index=index)


def parse_messages(items: Iterable[MessageLike]) -> list[Message]:
    """Validate a batch; one bad message rejects the whole batch.

    Raises:
        MessageValidationError: naming the index of the first bad message and its field.
    """
    expect_batch(items)
    return [Message.from_openai(item, index=i) for i, item in enumerate(items)]


def _build(role: Role, content: str | Sequence[dict[str, Any]] | None, **extra: Any) -> Message:
    data: dict[str, Any] = {
        "role": role,
        "content": content if content is None or isinstance(content, str) else list(content),
    }
    data.update({k: v for k, v in extra.items() if v is not None})
    return Message.from_openai(data)


def system(content: str) -> Message:
    """A system message."""
    return _build("system", content)


def user(content: str | Sequence[dict[str, Any]], *, name: str | None = None) -> Message:
    """A user message (text or content parts)."""
    return _build("user", content, name=name)


def assistant(
    content: str | None = None,
    *,
    tool_calls: Sequence[Mapping[str, Any]] | None = None,
    name: str | None = None,
) -> Message:
    """An assistant message, optionally with tool calls."""
    calls = [dict(c) for c in tool_calls] if tool_calls else None
    return _build("assistant", content, tool_calls=calls, name=name)


def tool(content: str, *, tool_call_id: str) -> Message:
    """A tool result answering the call ``tool_call_id``."""
    return _build("tool", content, tool_call_id=tool_call_id)
