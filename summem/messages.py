"""Messages in the OpenAI chat-completions shape, validated once and given back unchanged.

The chat-completions dict is summem's lingua franca. :class:`Message` validates it (roles,
content parts, tool calls), keeps every field it does not know (provider extras) and gives the
same dict back from :meth:`Message.to_openai`. summem's own bookkeeping (a stable id, the
summary marker with its provenance, cached token counts) lives in private attributes that are
never part of that dict, so it can never reach a provider.

Both classes are plain immutable classes with slots, not pydantic models: a message is built
on every turn, and ``import pydantic`` alone costs more than a fresh process's whole first
turn should. They keep the pydantic methods callers use (``model_dump``, ``model_copy``,
``model_validate``, ``model_extra``...), and either can be a field of a pydantic model
(``__get_pydantic_core_schema__`` imports pydantic only then).
"""

from __future__ import annotations

import copy
import os
import random
from collections.abc import Iterable, Mapping, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast

from summem._message_checks import check_message, check_values, expect_batch
from summem.errors import MessageValidationError

if TYPE_CHECKING:
    from datetime import datetime  # imported where a summary's time is made or read

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


_SUMMARY_FIELDS = (
    "covered_ids",
    "previous_summary_id",
    "watermark",
    "summarizer",
    "model",
    "prompt",
    "prompt_hash",
    "tokens",
    "created_at",
    "extra",
)


class SummaryInfo:
    """Provenance of a summary message; summem metadata, never sent to a provider.

    Immutable. Built by keyword, every field optional; each value is checked as the pydantic
    model this was before checked it (a list of ids becomes a tuple, an ISO 8601 text a
    ``datetime``), and a bad one raises :class:`~summem.errors.MessageValidationError`
    naming the field.
    """

    __slots__ = (*_SUMMARY_FIELDS, "__weakref__")

    covered_ids: tuple[str, ...]
    """Ids of the messages this reduction folded in (the span ``history[k:k']``)."""
    previous_summary_id: str | None
    """Id of the summary this one replaced and integrated, if any."""
    watermark: int
    """``k'``: the number of history messages this summary stands for."""
    summarizer: str
    """Which summarizer wrote it, e.g. ``"extractive"`` or ``"llm:gpt-4o-mini"``."""
    model: str | None
    prompt: str | None
    """``name@version`` of the prompt, for LLM summaries."""
    prompt_hash: str | None
    tokens: int
    """Size of the summary message under the reducer's token counter."""
    created_at: datetime
    """When it was written (now, in UTC, unless given)."""
    extra: dict[str, Any]
    """Anything a summarizer wants to keep, e.g. provenance of extracted facts."""

    def __init__(
        self,
        *,
        covered_ids: Iterable[str] = (),
        previous_summary_id: str | None = None,
        watermark: int | float | str = 0,
        summarizer: str = "unknown",
        model: str | None = None,
        prompt: str | None = None,
        prompt_hash: str | None = None,
        tokens: int | float | str = 0,
        created_at: datetime | str | float | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        """Check each value and keep it.

        Raises:
            MessageValidationError: naming the field at fault.
        """
        if extra is None:
            extra = {}
        elif not isinstance(extra, Mapping):
            raise _info_error("extra", f"must be a mapping, got {type(extra).__name__}")
        _set(self, "covered_ids", _covered(covered_ids))
        _set(self, "previous_summary_id", _text_or_none("previous_summary_id", previous_summary_id))
        _set(self, "watermark", _integer("watermark", watermark))
        _set(self, "summarizer", _text("summarizer", summarizer))
        _set(self, "model", _text_or_none("model", model))
        _set(self, "prompt", _text_or_none("prompt", prompt))
        _set(self, "prompt_hash", _text_or_none("prompt_hash", prompt_hash))
        _set(self, "tokens", _integer("tokens", tokens))
        _set(self, "created_at", _moment(created_at))
        _set(self, "extra", dict(extra))

    @classmethod
    def model_validate(cls, obj: Any) -> SummaryInfo:
        """``obj`` itself when it is one, else one built from a mapping of its fields.

        Raises:
            MessageValidationError: not a mapping, a key that is no field, a bad value.
        """
        if isinstance(obj, SummaryInfo):
            return obj
        if not isinstance(obj, Mapping):
            raise MessageValidationError(
                f"summary provenance must be a mapping, got {type(obj).__name__}"
            )
        for key in obj:
            if key not in _SUMMARY_FIELDS:
                raise _info_error(str(key), "not a field of SummaryInfo (extra inputs are refused)")
        return cls(**obj)

    def model_dump(self, *, mode: Literal["python", "json"] = "python") -> dict[str, Any]:
        """The fields as a new dict; ``mode="json"``: JSON values (``created_at`` as ISO 8601).

        Raises:
            ValueError: an unknown mode.
        """
        data = self._values()
        data["extra"] = copy_json(self.extra)
        if mode == "json":
            data["covered_ids"] = list(self.covered_ids)
            data["created_at"] = _iso(self.created_at)
            data["extra"] = _jsonable(data["extra"])
        elif mode != "python":
            raise ValueError(f"mode must be 'python' or 'json', got {mode!r}")
        return data

    def model_dump_json(self) -> str:
        """``model_dump(mode="json")`` as compact JSON text."""
        import json

        return json.dumps(self.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> SummaryInfo:
        """A copy with ``update``'s fields replaced, checked as on construction."""
        if not update:
            return self  # immutable: the same value
        return type(self).model_validate({**self._values(), **update})

    def _values(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _SUMMARY_FIELDS}

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(
            f"SummaryInfo is immutable: {name!r} cannot be set (model_copy(update=...) makes "
            "a changed copy)"
        )

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"SummaryInfo is immutable: {name!r} cannot be deleted")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        # as the frozen pydantic model's: over the values (``extra``, a dict, is unhashable)
        return hash(tuple(getattr(self, name) for name in _SUMMARY_FIELDS))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_summary_info, (self._values(),))

    def __repr__(self) -> str:
        return f"SummaryInfo({', '.join(f'{k}={v!r}' for k, v in self._values().items())})"

    def __str__(self) -> str:
        return " ".join(f"{k}={v!r}" for k, v in self._values().items())

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """As a pydantic model's field: validated from a mapping, dumped as :meth:`model_dump`."""
        return _pydantic_schema(cls.model_validate, _dump_info)

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: Any) -> dict[str, Any]:
        """An object of the fields above (pydantic cannot derive it from a plain class)."""
        text = {"type": "string"}
        text_or_null = {"anyOf": [text, {"type": "null"}]}
        return {
            "type": "object",
            "title": "SummaryInfo",
            "properties": {
                "covered_ids": {"type": "array", "items": text},
                "previous_summary_id": text_or_null,
                "watermark": {"type": "integer"},
                "summarizer": text,
                "model": text_or_null,
                "prompt": text_or_null,
                "prompt_hash": text_or_null,
                "tokens": {"type": "integer"},
                "created_at": {"type": "string", "format": "date-time"},
                "extra": {"type": "object"},
            },
            "additionalProperties": False,
        }


def _summary_info(values: dict[str, Any]) -> SummaryInfo:
    return SummaryInfo(**values)


def _dump_info(info: SummaryInfo, how: Any) -> dict[str, Any]:
    return info.model_dump(mode="json" if how.mode == "json" else "python")


def _info_error(field: str, reason: str) -> MessageValidationError:
    return MessageValidationError(reason, field=f"summary_info.{field}")


def _text(field: str, value: object) -> str:
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str(value)  # a subclass: the plain text, as pydantic gave it
    raise _info_error(field, f"must be a string, got {type(value).__name__}")


def _text_or_none(field: str, value: object) -> str | None:
    return None if value is None else _text(field, value)


def _integer(field: str, value: object) -> int:
    """An ``int`` from an int, a whole float or the text of an integer (pydantic's lax rules)."""
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and len(value) <= 64:
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise _info_error(field, f"must be an integer, got {value!r:.60}")


def _covered(ids: object) -> tuple[str, ...]:
    if isinstance(ids, (str, bytes, Mapping)) or not isinstance(ids, Iterable):
        raise _info_error("covered_ids", f"must be a list of ids, got {type(ids).__name__}")
    out = tuple(_text(f"covered_ids[{i}]", x) for i, x in enumerate(ids))
    if len(set(out)) != len(out):
        seen: set[str] = set()
        for i in out:
            if i in seen:
                raise _info_error("covered_ids", f"covers {i!r} twice: a message is covered once")
            seen.add(i)
    return out


def _moment(value: object) -> datetime:
    from datetime import datetime, timezone  # here: a summary needs it, a turn does not

    if value is None:
        return datetime.now(timezone.utc)
    if isinstance(value, datetime):
        return value
    if isinstance(value, str):
        text = value[:-1] + "+00:00" if value[-1:] in ("Z", "z") else value
        try:  # "Z" spelled out: Python 3.10's fromisoformat does not read it, and _iso writes it
            return datetime.fromisoformat(text)
        except ValueError:
            pass
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value, timezone.utc)
        except (ValueError, OverflowError, OSError):
            pass
    raise _info_error("created_at", f"must be a datetime or ISO 8601 text, got {value!r:.60}")


def _iso(moment: datetime) -> str:
    """``moment`` in ISO 8601, UTC written ``Z`` (as pydantic wrote the records stored so far)."""
    text = moment.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _jsonable(value: Any) -> Any:
    """``value`` as pydantic's JSON mode gave it.

    Tuples and sets as lists, mappings as dicts with text keys, a NaN or infinite float as
    ``None`` (JSON has no such number), a date or time in ISO 8601 (UTC as ``Z``), bytes as
    UTF-8 text, an enum as its value, a UUID, decimal or path as its text.
    """
    kind = type(value)
    if kind in _SCALARS and kind is not float:
        return value
    if isinstance(value, Mapping):
        return {k if isinstance(k, str) else str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    if isinstance(value, float):
        return None if value != value or value in (_INF, -_INF) else value
    if isinstance(value, (str, int)) and not isinstance(value, Enum):
        return value
    return _json_scalar(value)


def _json_scalar(value: Any) -> Any:
    """A value JSON has no type for, as pydantic's JSON mode wrote it (else as it is)."""
    import datetime as dt
    from decimal import Decimal
    from pathlib import PurePath
    from uuid import UUID

    if isinstance(value, dt.datetime):
        return _iso(value)
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    if isinstance(value, Enum):
        return _jsonable(value.value)
    if isinstance(value, (Decimal, UUID, PurePath)):
        return str(value)
    return value


_INF = float("inf")


def _pydantic_schema(validate: Any, dump: Any) -> Any:
    """The pydantic-core schema of a class validated by ``validate`` and dumped by ``dump``.

    Imports pydantic: only a user's pydantic model holding a summem message calls this.
    """
    from pydantic_core import core_schema

    return core_schema.no_info_plain_validator_function(
        validate,
        serialization=core_schema.plain_serializer_function_ser_schema(dump, info_arg=True),
    )


_FIELD_NAMES: tuple[str, ...] = ("role", "content", "name", "tool_calls", "tool_call_id")
"""A message's own fields, in the order ``model_dump`` gives them (extras after them)."""
_FIELD_ORDER: dict[str, int] = {name: i for i, name in enumerate(_FIELD_NAMES)}
_TEXT_FIELDS = frozenset(("role", "content", "name", "tool_call_id"))
_LIST_FIELDS = frozenset(("content", "tool_calls"))


class _MessageSlots:
    """A :class:`Message`'s layout, assignable while one is built (see :func:`flat_message`)."""

    __slots__ = (  # __weakref__: a message can be weakly referenced, as the model could
        "__weakref__",
        "_data",
        "_extra",
        "_id",
        "_meta",
        "_summary",
        "_token_cache",
        "content",
        "name",
        "role",
        "tool_call_id",
        "tool_calls",
    )

    role: Role
    content: str | list[dict[str, Any]] | None
    name: str | None
    tool_calls: list[dict[str, Any]] | None
    tool_call_id: str | None
    _data: dict[str, Any]  # the chat-completions dict as given: fields and extras, in order
    _extra: dict[str, Any] | None  # the provider extras (keys beyond the fields), if any
    _id: str
    _summary: SummaryInfo | None
    _token_cache: dict[str, int]
    _meta: dict[str, Any]


_SLOTS = frozenset(_MessageSlots.__slots__)


class Message(_MessageSlots):
    """One chat-completions message.

    Build it from a dict with :func:`parse_message` (or ``Message.from_openai``) and give it back
    with :meth:`to_openai`; the round trip is lossless, provider extras included. Immutable:
    :meth:`model_copy` makes a changed copy.
    """

    __slots__ = ()

    def __init__(self, /, **data: Any) -> None:
        """Build from fields (extras allowed), with :meth:`from_openai`'s checks.

        Raises:
            MessageValidationError: naming the field at fault.
        """
        check_message(data, None)
        own = _own_copy(data)
        ordered = {k: own[k] for k in _FIELD_NAMES if k in own}  # model_dump's order
        ordered.update((k, v) for k, v in own.items() if k not in _FIELD_ORDER)
        _fill(self, ordered, new_message_id())

    if not TYPE_CHECKING:  # for mypy, a message has no attribute beyond those declared

        def __getattr__(self, name: str) -> Any:
            """A provider extra by name (``msg.refusal``), as pydantic gave it."""
            if name not in _SLOTS:  # an unset slot (while unpickling) is not an extra
                extra = self._extra
                if extra is not None and name in extra:
                    return extra[name]
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

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
        if type(data) is dict:  # the common case: a flat dict of strings, checked at once
            flat = flat_message(data, id) if cls is Message else None
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
        """The full path of :meth:`from_openai`: every check, then a copy of the caller's values."""
        data = _without_empty_calls(data)
        check_message(data, index)
        msg = object.__new__(cls)
        _fill(msg, _own_copy(data), id or new_message_id())
        return msg

    @classmethod
    def model_validate(cls, obj: Any) -> Message:
        """:meth:`from_openai` (a message is given back as it is)."""
        return cls.from_openai(obj)

    def _clone(
        self,
        data: dict[str, Any] | None = None,
        *,
        _id: str | None = None,
        _summary: SummaryInfo | None = None,
        _token_cache: dict[str, int] | None = None,
        _meta: dict[str, Any] | None = None,
    ) -> Message:
        """This message with the given parts replaced; the token cache and meta copied."""
        clone = object.__new__(type(self))
        if data is None:
            for name in _FIELD_NAMES:
                _set(clone, name, getattr(self, name))
            _set(clone, "_data", self._data)
            _set(clone, "_extra", self._extra)
            _set(clone, "_id", self._id if _id is None else _id)
        else:
            _fill(clone, data, self._id if _id is None else _id)
        _set(clone, "_summary", self._summary if _summary is None else _summary)
        cache = dict(self._token_cache) if _token_cache is None else _token_cache
        _set(clone, "_token_cache", cache)
        _set(clone, "_meta", dict(self._meta) if _meta is None else _meta)
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
        return self._clone(_meta={**self._meta, **values})

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Message:
        """A copy (same id, summary marker and meta) with ``update``'s fields replaced.

        The updated message is checked as :meth:`from_openai` checks one, and counted anew.

        Raises:
            MessageValidationError: the update makes an invalid message.
        """
        if not update:
            return self._clone(copy_json(self._data) if deep else None)
        data = {**self._data, **update}
        check_message(data, None)
        return self._clone(_own_copy(data), _token_cache={})

    # -- summem metadata ------------------------------------------------------------------

    @property
    def id(self) -> str:
        """Stable id, assigned once; never sent to a provider."""
        return self._id

    @property
    def summary_info(self) -> SummaryInfo | None:
        """Provenance, when this message is a summary written by summem."""
        return self._summary

    @property
    def is_summary(self) -> bool:
        """True when summem wrote this message as a summary."""
        return self._summary is not None

    @property
    def is_system(self) -> bool:
        """True for ``system`` and ``developer`` messages (treated alike), except in place ones.

        A message marked :data:`IN_PLACE` is ordinary history, whatever its role.
        """
        if self.role not in ("system", "developer"):
            return False
        return not self._meta.get(IN_PLACE)

    @property
    def meta(self) -> dict[str, Any]:
        """Annotations of summem's own, JSON-serialisable, stored, never sent to a provider.

        For example the provider's usage for a reply, or when the message was added.
        """
        return self._meta

    @property
    def token_cache(self) -> dict[str, int]:
        """Per-counter token counts, filled by token counters; not part of the message."""
        return self._token_cache

    # -- views ----------------------------------------------------------------------------

    def to_openai(self) -> dict[str, Any]:
        """The chat-completions dict, exactly as given (extras and key order), as a fresh copy."""
        if self.tool_calls is None and self._extra is None and type(self.content) is not list:
            return dict(self._data)  # every value a string or None: a new dict is a fresh copy
        return cast(dict[str, Any], copy_json(self._data))

    def openai_fields(self) -> dict[str, Any]:
        """:meth:`to_openai`'s keys and values, the values shared with this message, not copied.

        For callers that copy what they keep (the view's renderer freezes it): it spares the
        deep copy. Do not change the values.
        """
        return dict(self._data)

    @property
    def model_extra(self) -> dict[str, Any]:
        """The provider extras: the keys beyond the chat-completions fields. Do not change it."""
        extra = self._extra
        return extra if extra is not None else {}

    @property
    def model_fields_set(self) -> set[str]:
        """The keys given, fields and extras."""
        return set(self._data)

    def model_dump(
        self,
        *,
        mode: Literal["python", "json"] = "python",
        exclude_unset: bool = False,
        exclude_none: bool = False,
    ) -> dict[str, Any]:
        """The fields (``None`` for those not given, unless ``exclude_unset``), then the extras.

        A fresh copy. Prefer :meth:`to_openai`: the dict as given, key order included.

        Raises:
            ValueError: an unknown mode.
        """
        data = self._data
        out: dict[str, Any] = {}
        for name in _FIELD_NAMES:
            if name in data:
                out[name] = data[name]
            elif not exclude_unset:
                out[name] = None
        if self._extra:
            out.update(self._extra)
        if exclude_none:
            out = {k: v for k, v in out.items() if v is not None}
        out = copy_json(out)
        if mode == "json":
            return cast(dict[str, Any], _jsonable(out))
        if mode != "python":
            raise ValueError(f"mode must be 'python' or 'json', got {mode!r}")
        return out

    def model_dump_json(self, *, exclude_unset: bool = False, exclude_none: bool = False) -> str:
        """:meth:`model_dump` in JSON mode, as compact JSON text."""
        import json

        dumped = self.model_dump(
            mode="json", exclude_unset=exclude_unset, exclude_none=exclude_none
        )
        return json.dumps(dumped, ensure_ascii=False, separators=(",", ":"))

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
        return self._data == other._data

    # -- the object protocol, as the frozen pydantic model this was had it ----------------

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(
            f"Message is immutable: {name!r} cannot be set (model_copy(update=...) makes a "
            "changed copy)"
        )

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Message is immutable: {name!r} cannot be deleted")

    def __eq__(self, other: object) -> bool:
        """Same type, fields, extras, id, summary marker, meta, token cache and key order."""
        if type(other) is not type(self):
            return NotImplemented
        that = other
        return (
            self.role == that.role
            and self.content == that.content
            and self.name == that.name
            and self.tool_calls == that.tool_calls
            and self.tool_call_id == that.tool_call_id
            and (self._extra or {}) == (that._extra or {})
            and self._id == that._id
            and self._summary == that._summary
            and self._token_cache == that._token_cache
            and self._meta == that._meta
            and _given_order(self._data) == _given_order(that._data)
        )

    def __hash__(self) -> int:
        # over the fields, as the frozen pydantic model's (content parts or calls: TypeError)
        return hash((self.role, self.content, self.name, self.tool_calls, self.tool_call_id))

    def __reduce__(self) -> tuple[Any, ...]:
        state = (self._data, self._id, self._summary, self._token_cache, self._meta)
        return (_restored, (type(self), *state))

    def __repr__(self) -> str:
        text = self.text
        short = text if len(text) <= 40 else text[:37] + "..."
        extra = f", tool_calls={len(self.tool_calls)}" if self.tool_calls else ""
        mark = ", summary" if self.is_summary else ""
        return f"Message(role={self.role!r}, content={short!r}{extra}{mark}, id={self.id!r})"

    __str__ = __repr__

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """As a pydantic model's field: checked by ``from_openai``, dumped by ``to_openai``."""
        return _pydantic_schema(cls.from_openai, _dump_message)

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: Any) -> dict[str, Any]:
        """A chat-completions message (pydantic cannot derive it from a plain class)."""
        return {
            "type": "object",
            "title": "Message",
            "properties": {"role": {"enum": sorted(_FLAT_ROLES)}},
            "required": ["role"],
            "additionalProperties": True,
        }


def _dump_message(message: Message, how: Any) -> dict[str, Any]:
    return message.to_openai()


def _own_copy(data: Mapping[str, Any]) -> dict[str, Any]:
    """A checked message's values, copied: nothing of the caller's is kept.

    The fields' values take the types a message holds (what pydantic made of them): a
    subclass of ``str`` becomes the plain text, content parts and tool calls plain dicts in a
    plain list. Extras are copied as they are.
    """
    own: dict[str, Any] = {}
    for key, value in data.items():
        kind = type(value)
        if kind in _SCALARS:
            pass
        elif key in _TEXT_FIELDS and isinstance(value, str):
            value = str(value)
        elif key in _LIST_FIELDS and isinstance(value, list):
            value = [copy_json(item) for item in value]  # mappings (checked): dicts
        else:
            value = copy_json(value)
        own[key] = value
    return own


def _fill(msg: Message, data: dict[str, Any], id: str) -> None:
    """Set ``msg``'s slots from ``data``, its own checked chat-completions dict."""
    get = data.get
    _set(msg, "role", data["role"])
    _set(msg, "content", get("content"))
    _set(msg, "name", get("name"))
    _set(msg, "tool_calls", get("tool_calls"))
    _set(msg, "tool_call_id", get("tool_call_id"))
    _set(msg, "_data", data)
    extra = {k: v for k, v in data.items() if k not in _FIELD_ORDER}
    _set(msg, "_extra", extra or None)
    _set(msg, "_id", id)
    _set(msg, "_summary", None)
    _set(msg, "_token_cache", {})
    _set(msg, "_meta", {})


def _restored(
    cls: type[Message],
    data: dict[str, Any],
    id: str,
    summary: SummaryInfo | None,
    token_cache: dict[str, int],
    meta: dict[str, Any],
) -> Message:
    """A message from :meth:`Message.__reduce__`'s state (pickle, ``copy``)."""
    msg = object.__new__(cls)
    _fill(msg, data, id)
    _set(msg, "_summary", summary)
    _set(msg, "_token_cache", token_cache)
    _set(msg, "_meta", meta)
    return msg


def _given_order(data: dict[str, Any]) -> tuple[str, ...] | None:
    """The keys' order when it is not ``model_dump``'s (what equality compared before)."""
    return None if _in_dump_order(data) else tuple(data)


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


_FLAT_FIELDS = frozenset(("role", "content", "name", "tool_call_id"))
_FLAT_ROLES = frozenset(("system", "developer", "user", "assistant", "tool"))
_set = object.__setattr__


def flat_message(data: dict[str, Any], id: str | None) -> Message | None:
    """``data`` as a :class:`Message`, checked at once, when it is flat and valid.

    The fast lane of :meth:`Message.from_openai` for the common message: an exact ``dict``
    whose keys are among ``role``, ``content``, ``name`` and ``tool_call_id`` (exact ``str``
    keys), every value an exact ``str`` that UTF-8 can encode, the role known, and
    ``tool_call_id`` present (non-empty) exactly when the role is ``tool``. Such a message
    passes every check of the full path, and the message built here equals the one the full
    path builds (same fields, extras and key order; tests compare them). Anything else
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
    # built as its plain layout, then made a Message: assigning slots directly is several
    # times cheaper than object.__setattr__ past Message's refusing __setattr__
    msg = _MessageSlots()
    msg.role = role
    msg.content = content
    msg.name = data.get("name")
    msg.tool_calls = None
    msg.tool_call_id = call_id
    msg._data = dict(data)
    msg._extra = None
    msg._id = id or new_message_id()
    msg._summary = None
    msg._token_cache = {}
    msg._meta = {}
    msg.__class__ = Message
    return cast(Message, msg)


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
        flat = flat_message(item, None)
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
