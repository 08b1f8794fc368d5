"""What every blind4 family shares: a conversation being written, and the retry that keeps it clean.

A family writes a draft with :class:`Convo` (user turns, assistant replies, tool calls with
their results, facts planted at the message that states them). :func:`build` keeps the first
draft in which every planted value, every value it replaced and every option not taken occurs in
exactly one message; a draft where filler happened to repeat one is thrown away and the next
attempt (a new random stream from the same seed) is written instead, so the retention check
("is the value in the view?") cannot be satisfied by another message.
"""

from __future__ import annotations

import bisect
import json
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evals.families.facts import PlantedFact, message_text
from evals.families.trajectories import Trajectory

__all__ = ["Convo", "Plant", "Slots", "build", "count_in", "spread"]

ATTEMPTS = 60


def count_in(messages: Iterable[Mapping[str, Any]], value: str) -> int:
    """How many messages hold ``value`` (content text, tool names and arguments), verbatim."""
    return sum(value in message_text(m) for m in messages)


@dataclass
class Plant:
    kind: str
    value: str
    turn_index: int
    message_index: int
    role: str
    aliases: tuple[str, ...] = ()
    stale: str | None = None
    stale_index: int | None = None
    older: tuple[str, ...] = ()
    until: int | None = None
    rejected: tuple[str, ...] = ()
    confirm_index: int | None = None


@dataclass
class Convo:
    """A conversation being written, one message at a time, with the facts planted in it."""

    rng: random.Random
    messages: list[dict[str, Any]] = field(default_factory=list)
    turn_starts: list[int] = field(default_factory=list)
    plants: list[Plant] = field(default_factory=list)

    def system(self, text: str) -> None:
        self.messages.append({"role": "system", "content": text})

    def user(self, text: str) -> int:
        """A user message opening a turn; its index."""
        self.turn_starts.append(len(self.messages))
        self.messages.append({"role": "user", "content": text})
        return len(self.messages) - 1

    def say(self, text: str) -> int:
        """An assistant reply; its index."""
        self.messages.append({"role": "assistant", "content": text})
        return len(self.messages) - 1

    def call(self, name: str, args: Mapping[str, Any], result: str) -> int:
        """An assistant tool call and the tool's result; the result's index."""
        return self.calls([(name, args, result)])[0]

    def calls(self, batch: Sequence[tuple[str, Mapping[str, Any], str]]) -> list[int]:
        """Parallel tool calls in one assistant message, then each result; their indexes."""
        ids = [f"call_{self.rng.getrandbits(64):016x}" for _ in batch]
        self.messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": cid,
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(dict(args))},
                    }
                    for cid, (name, args, _) in zip(ids, batch, strict=True)
                ],
            }
        )
        out = []
        for cid, (_, _, result) in zip(ids, batch, strict=True):
            self.messages.append({"role": "tool", "tool_call_id": cid, "content": result})
            out.append(len(self.messages) - 1)
        return out

    def plant(self, kind: str, value: str, index: int, **extra: Any) -> Plant:
        """Record that message ``index`` states ``value``, a fact of ``kind``."""
        assert value in message_text(self.messages[index]), (value, self.messages[index])
        p = Plant(
            kind=kind,
            value=value,
            turn_index=bisect.bisect_right(self.turn_starts, index) - 1,
            message_index=index,
            role=self.messages[index]["role"],
            **extra,
        )
        self.plants.append(p)
        return p

    def facts(self) -> tuple[PlantedFact, ...]:
        ordered = sorted(self.plants, key=lambda p: p.message_index)
        return tuple(
            PlantedFact(
                id=f"f{i:02d}",
                kind=p.kind,  # type: ignore[arg-type]
                value=p.value,
                turn_index=p.turn_index,
                message_index=p.message_index,
                role=p.role,
                aliases=p.aliases,
                stale=p.stale,
                stale_index=p.stale_index,
                older=p.older,
                until=p.until,
                rejected=p.rejected,
                confirm_index=p.confirm_index,
            )
            for i, p in enumerate(ordered)
        )


def _clean(convo: Convo) -> bool:
    for p in convo.plants:
        stale = (p.stale,) if p.stale is not None else ()
        for value in (p.value, *stale, *p.older, *p.rejected):
            if count_in(convo.messages, value) != 1:
                return False
    return True


def build(
    name: str,
    seed: int,
    write: Callable[[Convo], None],
    params: Mapping[str, Any],
) -> Trajectory:
    """The first clean draft ``write`` makes for ``seed`` (see the module docstring)."""
    for attempt in range(ATTEMPTS):
        convo = Convo(random.Random(f"blind4:{name}:{seed}:{attempt}"))
        write(convo)
        if _clean(convo):
            return Trajectory(
                seed=seed,
                messages=tuple(convo.messages),
                facts=convo.facts(),
                turn_starts=tuple(convo.turn_starts),
                params={"style": name, "attempt": attempt, **params},
            )
    raise RuntimeError(f"{name}: no clean draft for seed {seed} in {ATTEMPTS} attempts")


Slot = Callable[[], None]


class Slots:
    """The turns of a conversation: planted episodes at chosen turns, filler everywhere else.

    An episode may place a follow-up while the conversation is being written (``now`` is the
    turn being written); a follow-up past the last turn adds a turn at the end.
    """

    def __init__(self, turns: int) -> None:
        self.slots: list[Slot | None] = [None] * turns
        self.now = 0

    def put(self, at: int, slot: Slot) -> int:
        """Place ``slot`` at turn ``at`` or the next free one; the turn it took."""
        at = max(0, at)
        while at < len(self.slots) and self.slots[at] is not None:
            at += 1
        while at >= len(self.slots):
            self.slots.append(None)
        self.slots[at] = slot
        return at

    def later(self, gap: int, slot: Slot) -> int:
        """Place ``slot`` ``gap`` turns after the one being written (or the next free one)."""
        return self.put(self.now + gap, slot)

    def run(self, filler: Slot) -> None:
        self.now = 0
        while self.now < len(self.slots):
            (self.slots[self.now] or filler)()
            self.now += 1


def spread(
    rng: random.Random, count: int, turns: int, *, start: int = 3, end: float = 0.9
) -> list[int]:
    """``count`` turns spread evenly over ``start``..``end * turns``, each jittered a little."""
    last = int(turns * end)
    step = (last - start) / max(count, 1)
    return [start + int(i * step + rng.random() * step * 0.6) for i in range(count)]
