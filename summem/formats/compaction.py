"""Provider compaction items: kept as they came, sent only to the provider that made them.

OpenAI and Anthropic compact a conversation themselves and hand back an item standing for what
they compacted. Only the provider that made it can read it, so summem treats it as a **provider
item** (``meta[PROVIDER_ITEM]``, see :data:`~summem.messages.PROVIDER_ITEM`):

==================================  =============================================================
OpenAI Responses                    an item ``{"type": "compaction", "id", "encrypted_content"}``
                                    (from ``context_management=[{"type": "compaction", ...}]`` or
                                    ``POST /responses/compact``): one message of its own, its
                                    text a label, the item as a counted extra
                                    (:data:`~summem.formats.responses.OPAQUE_FIELD`)
Anthropic (through litellm)         ``compaction`` blocks on an assistant reply, kept by litellm
                                    in ``provider_specific_fields["compaction_blocks"]`` and sent
                                    back first in that turn's content; or a ``compaction`` part in
                                    the message's content
==================================  =============================================================

The rules (:func:`for_provider`):

- **Natural cut.** OpenAI lets the items before the latest compaction item go: in the view for
  OpenAI (``items()``, ``wrap_openai``'s Responses calls) the summary and the messages before
  that item are left out (they stay in the store). A reduction that finds one in the conversation
  cuts right before it (:func:`natural_cut`), so summem's own summary of the same span, its
  **twin**, is written beside it (linked: :func:`twin_link`).
- **Another provider.** A view for any other provider (chat completions, litellm to another
  provider) leaves the items out, and strips Anthropic blocks from the turn carrying them: what
  they stand for is in the view already (the messages before them, or the twin as the summary).
- **Never summarized.** A summarizer reads none of it (:func:`skipped_text`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from summem.messages import PROVIDER_ITEM, Message

__all__ = [
    "ANTHROPIC",
    "COMPACTION_BLOCKS",
    "COMPACTION_WINDOW",
    "OPENAI",
    "PROVIDERS",
    "PROVIDER_SUMMARY",
    "TWIN_OF",
    "Provider",
    "anthropic_summary_message",
    "anthropic_summary_turn",
    "block_only",
    "compaction_blocks",
    "for_provider",
    "natural_cut",
    "openai_compaction_message",
    "provider_item",
    "provider_summary_items",
    "provider_summary_message",
    "skipped_text",
    "twin_due",
    "twin_link",
    "without_provider_items",
]

Provider = Literal["openai", "anthropic"]
OPENAI: Provider = "openai"
ANTHROPIC: Provider = "anthropic"
PROVIDERS: tuple[Provider, ...] = (OPENAI, ANTHROPIC)

COMPACTION_BLOCKS = "compaction_blocks"
"""Key of litellm's ``provider_specific_fields`` holding an Anthropic reply's compaction blocks."""

COMPACTION_WINDOW = "compaction_window"
"""``meta`` key of an OpenAI compaction item's message: the items ``/responses/compact``
returned before it (the user messages), sent before it, as they came."""

TWIN_OF = "twin_of"
"""Key in a summary's ``SummaryInfo.extra``: the provider item it is the readable twin of,
``{"provider", "kind", "id", "message_id"}``."""

PROVIDER_SUMMARY = "provider_compaction"
"""Key in a summary's ``SummaryInfo.extra`` when the provider compacted its span (delegation,
:class:`~summem.summarizers.provider.OpenAICompaction`): ``{"provider", "kind", "id",
"item", "window", "model", "usage", "twin"}``, the item and the messages OpenAI returned
before it as they came; or ``{"provider", "failed"}`` when the twin stands alone."""

_FIELD = "opaque_item"  # summem.formats.responses.OPAQUE_FIELD (same layer: no import)


def openai_compaction_message(
    item: Mapping[str, Any], window: Sequence[Mapping[str, Any]] = ()
) -> Message:
    """An OpenAI ``compaction`` item as a provider item message (the item itself in ``meta``).

    Its chat form only names the item (a summary never quotes it); the item's JSON is a
    string extra, counted against the budget (its ``encrypted_content`` by the payload's size,
    :func:`summem.tokens.provider.encrypted_tokens`; the rest as text) and never read.
    ``window``: the items
    ``/responses/compact`` returned before it (:data:`COMPACTION_WINDOW`), sent with it.
    """
    data = dict(item)
    item_id = data.get("id") if isinstance(data.get("id"), str) else None
    counted: Any = data if not window else [*window, data]
    chat = {
        "role": "assistant",
        "content": "[compaction item: the conversation before it, as OpenAI compacted it]",
        _FIELD: json.dumps(counted, sort_keys=True, ensure_ascii=False),
    }
    info = {"provider": OPENAI, "kind": "compaction", "id": item_id}
    meta: dict[str, Any] = {"responses_item": data, PROVIDER_ITEM: info}
    if window:
        meta[COMPACTION_WINDOW] = [dict(w) for w in window]
    return Message.from_openai(chat).with_meta(**meta)


def provider_summary_items(summary: Message) -> list[dict[str, Any]] | None:
    """What a delegated summary is at OpenAI: the window, then the item (``None``: a text one)."""
    info = summary.summary_info
    held = info.extra.get(PROVIDER_SUMMARY) if info is not None else None
    if not isinstance(held, dict) or not isinstance(held.get("item"), dict):
        return None
    window = held.get("window")
    return [*(window if isinstance(window, list) else []), held["item"]]


def provider_summary_message(summary: Message) -> Message | None:
    """What ``items()`` sends for a delegated summary, as summem counts it (``None``: none).

    The window and the item OpenAI returned, as one provider item message
    (:func:`openai_compaction_message`): counted exactly as the same
    item and window sitting in the history. A summary's budget share is the larger of this
    and the summary itself (the twin, which every other view sends).
    """
    items = provider_summary_items(summary)
    if items is None:
        return None
    *window, item = items
    return openai_compaction_message(item, window)


def anthropic_summary_turn(held: Any) -> dict[str, Any] | None:
    """The assistant turn carrying a delegated summary's Anthropic block, for Claude only.

    litellm sends ``provider_specific_fields["compaction_blocks"]`` first in the assistant
    turn (merged with a following assistant turn); Claude reads from the block on.
    """
    if not isinstance(held, dict) or held.get("provider") != ANTHROPIC:
        return None
    block = held.get("block")
    if not isinstance(block, dict):
        return None
    return {
        "role": "assistant",
        "content": None,
        "provider_specific_fields": {COMPACTION_BLOCKS: [dict(block)]},
    }


def anthropic_summary_message(summary: Message) -> Message | None:
    """The assistant turn Claude's view adds after a delegated summary (``None``: none).

    ``messages(provider="anthropic")`` sends the summary (the twin) and then this turn
    (:func:`anthropic_summary_turn`), counted as the same block sitting in the history is. A
    summary's budget share is the twin plus this turn when it has one.
    """
    info = summary.summary_info
    turn = anthropic_summary_turn(info.extra.get(PROVIDER_SUMMARY) if info is not None else None)
    return None if turn is None else Message.from_openai(turn)


def block_only(turn: dict[str, Any]) -> dict[str, Any]:
    """A rendered turn for Claude: one that is only compaction blocks gets ``content: None``.

    Claude's reply when it pauses after compacting (``pause_after_compaction``) is the block
    alone, stored with empty text. litellm sends an assistant turn's ``""`` as a placeholder
    text block ("[System: Empty message content sanitised...]"), which Claude would take as
    the start of its reply; with ``None`` it sends the block alone, as it came.
    """
    if turn.get("role") != "assistant" or turn.get("content") != "" or turn.get("tool_calls"):
        return turn
    fields = turn.get("provider_specific_fields")
    if not isinstance(fields, Mapping) or not fields.get(COMPACTION_BLOCKS):
        return turn
    return {**turn, "content": None}


def compaction_blocks(message: Message) -> list[dict[str, Any]]:
    """The Anthropic compaction blocks a message carries (litellm's field, or content parts)."""
    if message.role != "assistant":
        return []
    out: list[dict[str, Any]] = []
    fields = (message.model_extra or {}).get("provider_specific_fields")
    if isinstance(fields, Mapping):
        blocks = fields.get(COMPACTION_BLOCKS)
        if isinstance(blocks, list):
            out.extend(b for b in blocks if isinstance(b, dict) and b.get("type") == "compaction")
    if isinstance(message.content, list):
        out.extend(p for p in message.content if p.get("type") == "compaction")
    return out


def provider_item(message: Message) -> dict[str, Any] | None:
    """What provider item ``message`` holds or carries, or ``None`` for an ordinary message.

    ``{"provider", "kind", "id"}``; an Anthropic block's id is ``None`` (blocks have none: the
    message's id names it).
    """
    info = message.meta.get(PROVIDER_ITEM)
    if isinstance(info, dict):
        return info
    if message.role == "assistant" and compaction_blocks(message):
        return {"provider": ANTHROPIC, "kind": "compaction", "id": None}
    return None


def skipped_text(message: Message) -> bool:
    """Whether a summarizer must read nothing of ``message``: an item only its maker reads.

    An OpenAI compaction item, or an opaque item (an SDK's encrypted session item, kept as it
    came by ``unknown="opaque"``): its text is only a label. An Anthropic reply carrying
    compaction blocks still has its own text, which is read; the blocks are not (they are not
    part of the content summem renders).
    """
    info = message.meta.get(PROVIDER_ITEM)
    if isinstance(info, dict) and info.get("provider") == OPENAI and not info.get("carried"):
        return True
    return message.role == "assistant" and _FIELD in (message.model_extra or {})


def _is_own(message: Message, provider: Provider) -> bool:
    info = provider_item(message)
    return info is not None and info.get("provider") == provider and not info.get("carried")


def natural_cut(tail: Sequence[Message]) -> int:
    """Where a reduction cuts for a provider item: right before the latest one (0: none).

    The latest compaction item in ``tail`` at position ``j > 0`` stands for ``tail[:j]`` (and
    whatever came before them): summarizing exactly that span gives its twin. An empty
    Anthropic block (a failed compaction) is no such item.
    """
    for j in range(len(tail) - 1, 0, -1):
        if _stands_for_history(tail[j]):
            return j
    return 0


def _stands_for_history(message: Message) -> bool:
    """A provider item that replaced what came before it (an empty Anthropic block did not).

    A compaction block with empty ``content`` is Anthropic's no-op (the compaction failed): it
    stands for nothing, so it is no cut and no twin is due for it.
    """
    if isinstance(message.meta.get(PROVIDER_ITEM), dict):
        return True
    return any(block.get("content") for block in compaction_blocks(message))


def twin_due(
    span: Sequence[Message], sizes: Sequence[int], summary: Message | None, step: int
) -> bool:
    """Whether a provider item's twin of ``span`` (sized ``sizes``) is worth a reduction now.

    Under the limits, the first twin (no summary yet, or one of summem's own) always is. After
    a twin, a provider that compacts every turn would have a twin written every turn, each
    standing for one turn: the next is due only once the conversation since the last twin
    holds ``step`` tokens (a regular reduction's worth: the threshold less the target; the
    items themselves, which no summary reads, are not counted). Until then the item is kept
    and sent as ever, and every other view still carries that conversation itself.
    """
    info = summary.summary_info if summary is not None else None
    if info is None or TWIN_OF not in info.extra:
        return True
    said = sum(size for m, size in zip(span, sizes, strict=False) if not skipped_text(m))
    return said >= step


def twin_link(first_kept: Message | None) -> dict[str, Any] | None:
    """The ``SummaryInfo.extra`` entry making a summary the twin of the item right after it."""
    if first_kept is None:
        return None
    info = provider_item(first_kept)
    if info is None:
        return None
    return {TWIN_OF: {**info, "message_id": first_kept.id}}


def _stripped(message: Message) -> Message:
    """An Anthropic-carrying message without its compaction blocks (same id)."""
    data = message.to_openai()
    fields = data.get("provider_specific_fields")
    if isinstance(fields, dict) and COMPACTION_BLOCKS in fields:
        rest = {k: v for k, v in fields.items() if k != COMPACTION_BLOCKS}
        if rest:
            data["provider_specific_fields"] = rest
        else:
            del data["provider_specific_fields"]
    if isinstance(data.get("content"), list):
        data["content"] = [p for p in data["content"] if p.get("type") != "compaction"] or ""
    return Message.from_openai(data, id=message.id)


def without_provider_items(
    tail: Sequence[Message], keep: Provider | None = None
) -> tuple[list[Message], list[Message]]:
    """``tail`` without the provider items ``keep`` cannot read, and the ones left out.

    An OpenAI compaction item is left out whole; a turn carrying Anthropic blocks is kept
    without them (its text and calls are ordinary conversation).
    """
    out: list[Message] = []
    dropped: list[Message] = []
    for msg in tail:
        info = provider_item(msg)
        if info is None or info.get("provider") == keep or info.get("carried"):
            out.append(msg)  # a carried item is not in the chat form: nothing to leave out
        elif msg.meta.get(PROVIDER_ITEM) is not None:
            dropped.append(msg)
        else:
            dropped.append(msg)
            out.append(_stripped(msg))
    return out, dropped


def for_provider(
    system: Message | None,
    summary: Message | None,
    tail: Sequence[Message],
    provider: Provider | None,
) -> tuple[list[Message], list[Message]]:
    """The view ``[system] + [summary] + tail`` as ``provider`` may take it, and what was left out.

    For OpenAI, the latest OpenAI compaction item is a natural cut: the summary and the tail
    before it are not sent (the provider allows dropping them). Every provider item the target
    cannot read is left out (``provider=None``: a chat-completions view, which reads none).
    """
    head = [system] if system is not None else []
    if provider == OPENAI:
        for j in range(len(tail) - 1, -1, -1):
            if _is_own(tail[j], OPENAI):
                kept, dropped = without_provider_items(tail[j:], OPENAI)
                return head + kept, dropped
    kept, dropped = without_provider_items(tail, provider)
    return head + ([summary] if summary is not None else []) + kept, dropped
