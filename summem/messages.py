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
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from summem.exceptions import MessageValidationError

__all__ = [
    "Message",
    "MessageLike",
    "Role",
    "SummaryInfo",
    "assistant",
    "copy_json",
    "new_message_id",
    "parse_message",
    "parse_messages",
    "system",
    "tool",
    "user",
]

Role = Literal["system", "developer", "user", "assistant", "tool"]
ROLES: frozenset[str] = frozenset(("system", "developer", "user", "assistant", "tool"))

# Required keys (and their types) for the content part types summem knows. Unknown part types
# are kept as they are, so a provider's new part type does not break summem.
_PART_FIELDS: dict[str, tuple[str, type]] = {
    "text": ("text", str),
    "image_url": ("image_url", dict),
    "input_audio": ("input_audio", dict),
    "file": ("file", dict),
    "refusal": ("refusal", str),
}


def new_message_id() -> str:
    """A new, globally unique message id."""
    return "m_" + os.urandom(12).hex()


class SummaryInfo(BaseModel):
    """Provenance of a summary message; summem metadata, never sent to a provider."""

    model_config = ConfigDict(frozen=True, extra="forbid")

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


class Message(BaseModel):
    """One chat-completions message.

    Build it from a dict with :func:`parse_message` (or ``Message.from_openai``) and give it back
    with :meth:`to_openai`; the round trip is lossless, provider extras included.
    """

    model_config = ConfigDict(frozen=True, extra="allow")

    role: Role
    content: str | list[dict[str, Any]] | None = None
    name: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    tool_call_id: str | None = None

    # summem's bookkeeping (id, summary marker, token cache, meta) lives in pydantic's private
    # slot, managed here rather than through PrivateAttr: pydantic's private-attribute set-up
    # costs more than validating the message itself, and every turn builds one.

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def from_openai(
        cls, data: Message | Mapping[str, Any], *, id: str | None = None, index: int | None = None
    ) -> Message:
        """Validate one chat-completions dict.

        Args:
            data: the message dict; it is copied, never kept or changed.
            id: a stable id to give it; a new one is made when omitted.
            index: the message's position in its batch, for error messages.

        Raises:
            MessageValidationError: naming the index and the field at fault.
        """
        if isinstance(data, Message):
            return data if id is None or id == data.id else data.with_id(id)
        if not isinstance(data, Mapping):
            raise MessageValidationError(
                f"expected a mapping (a chat-completions dict), got {type(data).__name__}",
                index=index,
            )
        _check_semantics(data, index)
        try:
            msg = cls.model_validate(copy_json(data))
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"][:2]) or None
            raise MessageValidationError(err["msg"], index=index, field=field) from None
        object.__setattr__(msg, "__pydantic_private__", _private(id or new_message_id()))
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
        """A copy (same id) with ``values`` merged into :attr:`meta`."""
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
        """True for ``system`` and ``developer`` messages (treated alike)."""
        return self.role in ("system", "developer")

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
        """The chat-completions dict, exactly as given (extras included), as a fresh copy."""
        return copy_json(self.model_dump(exclude_unset=True))  # type: ignore[no-any-return]

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


MessageLike = Message | Mapping[str, Any]


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


def _private(id: str) -> dict[str, Any]:
    return {"_id": id, "_summary": None, "_token_cache": {}, "_meta": {}}


def _check_semantics(data: Mapping[str, Any], index: int | None) -> None:
    """Checks pydantic's types cannot express; each error names the field."""
    role = data.get("role")
    if "role" not in data:
        raise MessageValidationError("missing required field", index=index, field="role")
    if not isinstance(role, str) or role not in ROLES:
        raise MessageValidationError(
            f"unknown role {role!r}; expected one of {sorted(ROLES)}", index=index, field="role"
        )
    content = data.get("content")
    if content is not None and not isinstance(content, (str, list)):
        raise MessageValidationError(
            f"must be a string, a list of content parts or null, got {type(content).__name__}",
            index=index,
            field="content",
        )
    if content is None and role in ("system", "developer", "user", "tool"):
        raise MessageValidationError(f"required for role {role!r}", index=index, field="content")
    if isinstance(content, list):
        for i, part in enumerate(content):
            _check_part(part, index, i)
    if role == "tool":
        tcid = data.get("tool_call_id")
        if not isinstance(tcid, str) or not tcid:
            raise MessageValidationError(
                "required (a non-empty string) for role 'tool'", index=index, field="tool_call_id"
            )
    elif data.get("tool_call_id") is not None:
        raise MessageValidationError(
            f"only allowed on role 'tool', not {role!r}", index=index, field="tool_call_id"
        )
    calls = data.get("tool_calls")
    if calls is not None:
        if role != "assistant":
            raise MessageValidationError(
                f"only allowed on role 'assistant', not {role!r}", index=index, field="tool_calls"
            )
        if not isinstance(calls, list):
            raise MessageValidationError("must be a list", index=index, field="tool_calls")
        seen: set[str] = set()
        for i, call in enumerate(calls):
            where = f"tool_calls[{i}]"
            if not isinstance(call, Mapping):
                raise MessageValidationError("must be a mapping", index=index, field=where)
            cid = call.get("id")
            if not isinstance(cid, str) or not cid:
                raise MessageValidationError(
                    "must be a non-empty string", index=index, field=f"{where}.id"
                )
            if cid in seen:
                raise MessageValidationError(
                    f"duplicate tool call id {cid!r}", index=index, field=f"{where}.id"
                )
            seen.add(cid)
            fn = call.get("function")
            if call.get("type", "function") == "function":
                if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
                    raise MessageValidationError(
                        "must be a mapping with a string 'name'",
                        index=index,
                        field=f"{where}.function",
                    )
                args = fn.get("arguments", "")
                if not isinstance(args, str):
                    raise MessageValidationError(
                        f"must be a JSON string, got {type(args).__name__}",
                        index=index,
                        field=f"{where}.function.arguments",
                    )
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        raise MessageValidationError(
            f"must be a string, got {type(name).__name__}", index=index, field="name"
        )


def _check_part(part: object, index: int | None, i: int) -> None:
    where = f"content[{i}]"
    if not isinstance(part, Mapping):
        raise MessageValidationError(
            f"a content part must be a mapping, got {type(part).__name__}",
            index=index,
            field=where,
        )
    ptype = part.get("type")
    if not isinstance(ptype, str):
        raise MessageValidationError(
            "a content part needs a string 'type'", index=index, field=f"{where}.type"
        )
    spec = _PART_FIELDS.get(ptype)
    if spec is None:
        return
    key, kind = spec
    if not isinstance(part.get(key), kind):
        raise MessageValidationError(
            f"a {ptype!r} part needs {key!r} as a {kind.__name__}",
            index=index,
            field=f"{where}.{key}",
        )
    if ptype == "image_url" and not isinstance(part[key].get("url"), str):
        raise MessageValidationError(
            "an image part needs a string 'url'", index=index, field=f"{where}.image_url.url"
        )


def parse_message(item: MessageLike, *, index: int | None = None) -> Message:
    """Validate one message (a dict or a :class:`Message`)."""
    return Message.from_openai(item, index=index)


def parse_messages(items: Iterable[MessageLike]) -> list[Message]:
    """Validate a batch; one bad message rejects the whole batch.

    Raises:
        MessageValidationError: naming the index of the first bad message and its field.
    """
    if isinstance(items, (str, bytes, Mapping)):
        raise MessageValidationError(f"expected a list of messages, got {type(items).__name__}")
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
