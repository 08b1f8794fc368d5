"""Planted-fact trajectories: synthetic assistant conversations whose every fact is known.

Real transcripts never say which of their details matter later, so retention over them can only
be judged by a model. Here a seeded generator writes a long support-assistant conversation (user
requests, assistant replies, tool calls with JSON results, parallel calls, filler chatter) and
plants distinctive facts at known turns: order codes, people's names, dates, preferences, numbers
inside tool results. Each value occurs in exactly one message, so "is it still in the view?" is a
string check: verbatim in a kept message, or carried by the summary (in any accepted surface
form). The same seed gives the same conversation on every machine and Python hash seed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from evals.families import (
    blind,
    blind2,
    heldout,
    ledgers,
    people,
    record_shapes,
    slot_changes,
    tool_shapes,
)
from evals.families import hidden as H
from evals.families import lists as L
from evals.families import pools as P
from evals.families.facts import KINDS, FactKind, PlantedFact, message_text
from evals.families.placement import Exhausted
from evals.text import normalize_text

__all__ = ["NESTED_KINDS", "STYLES", "Trajectory", "generate_trajectory"]


@dataclass(frozen=True)
class Trajectory:
    """A generated conversation and the facts planted in it.

    Attributes:
        seed: the generator's seed.
        messages: chat-completions dicts; a system message first.
        facts: the planted facts, in order.
        turn_starts: index of the user message opening each turn, for turn-by-turn replay.
        params: the generator's other arguments, for reports.
    """

    seed: int
    messages: tuple[dict[str, Any], ...]
    facts: tuple[PlantedFact, ...]
    turn_starts: tuple[int, ...]
    params: dict[str, Any] = field(default_factory=dict)

    def facts_before(self, message_count: int) -> list[PlantedFact]:
        """Facts planted in the first ``message_count`` messages (those a probe may ask for).

        A value a later correction in those messages superseded (``until``) is not asked for.
        """
        return [
            f
            for f in self.facts
            if f.message_index < message_count and (f.until is None or f.until >= message_count)
        ]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the whole trajectory."""
        return asdict(self)


# -- the generator -------------------------------------------------------------------------


def generate_trajectory(
    seed: int,
    *,
    turns: int = 120,
    facts: int = 20,
    tool_call_rate: float = 0.35,
    parallel_rate: float = 0.3,
    filler_sentences: tuple[int, int] = (2, 5),
    filler: str = "plain",
    corrections: int = 0,
    speakers: str = "user",
    style: str = "direct",
) -> Trajectory:
    """A deterministic support-assistant conversation with ``facts`` facts planted in it.

    Args:
        seed: the only source of randomness; same seed, same trajectory.
        turns: user turns (each a user message, the assistant's reply and any tool exchange).
        facts: facts to plant, at most one per turn, spread over the whole conversation and
            balanced across :data:`KINDS`.
        tool_call_rate: share of filler turns where the assistant calls tools first.
        parallel_rate: share of tool-calling turns with two or three parallel calls; their
            results come back in shuffled order half of the time.
        filler_sentences: min and max sentences in an ordinary assistant reply.
        filler: ``"plain"``, or ``"realistic"``: ordinary turns also carry numbers, codes,
            dates, times and names (fresh values, never a planted fact's), as real chatter does.
        corrections: facts stated, then corrected some turns later with a new value (kind
            ``"correction"``: the fact is the new value; ``stale`` is the old one). They take
            two turns each, apart from the ``facts`` turns.
        speakers: who states the facts told in a sentence (codes, names, dates and
            preferences; not values in tool results): ``"user"``, or ``"both"``: the user or
            the assistant at random, the same sentences either way, so any difference in how
            well the two sides' facts are kept comes from the speaker alone.
        style: how facts are planted: ``"direct"`` (as above); ``"indirect"``: every fact
            in a user sentence that implies it rather than says what it is ("we fly out on
            {date}, same as last time"; kinds code, name, date, value, preference);
            ``"nested-tool"``: every fact three or more levels deep in a tool result's JSON,
            among other keys and numbers (kinds code, name, date, value); ``"lists"``:
            the user states the facts in lists of :data:`evals.families.lists.LIST_LENGTH`,
            one kind per list, in consecutive turns and one shared sentence frame, only the
            value and a plain word or two changing ("My sister {v} lives in Leeds and ...",
            then a brother); the lists are spread over the conversation; ``"heldout"``: a
            family written apart from the others and from the summarizer's heuristics, with
            its own domain, filler, plan and sentence frames (:mod:`evals.families.heldout`; it
            needs ``filler="realistic"`` and ``speakers="user"``, and ignores the rates and
            ``filler_sentences``);
            or one of the families written blind (:mod:`evals.families.blind`: ``"prose"``,
            ``"tables"``, ``"confirmations"``, ``"chains"``, ``"locales"``, ``"fragments"``;
            or the second set's, :mod:`evals.families.blind2`: ``"tool-tables"`` and the
            others its ``WRITERS`` names), each with its own writer, filler and plan (they
            need ``corrections=0``, the default filler and speakers, and ignore the rates and
            ``filler_sentences``).

    Raises:
        ValueError: on impossible arguments (more facts than turns, rates outside [0, 1]).
    """
    if turns < 1 or facts < 0 or corrections < 0 or facts + 2 * corrections > turns:
        raise ValueError(
            f"need 0 <= facts + 2 * corrections <= turns and turns >= 1, got "
            f"{facts=} {corrections=} {turns=}"
        )
    if speakers not in ("user", "both"):
        raise ValueError(f"speakers must be 'user' or 'both', got {speakers!r}")
    if filler not in ("plain", "realistic"):
        raise ValueError(f"filler must be 'plain' or 'realistic', got {filler!r}")
    if style not in STYLES:
        raise ValueError(f"style must be one of {STYLES}, got {style!r}")
    if style == "heldout":
        return _heldout_trajectory(seed, turns, facts, corrections, filler, speakers)
    if style in WRITERS:
        return _blind_trajectory(seed, style, turns, facts, corrections, filler, speakers)
    kinds_planted = NESTED_KINDS if style == "nested-tool" else KINDS
    if style == "indirect" and facts > len(H.INDIRECT_PREFERENCES) * len(KINDS):
        raise ValueError(f"at most {len(H.INDIRECT_PREFERENCES) * len(KINDS)} facts are supported")
    if style == "lists" and -(-facts // L.LIST_LENGTH) > turns // L.LIST_LENGTH:
        raise ValueError(f"lists need {L.LIST_LENGTH} free turns each: {facts=} {turns=}")
    if style == "lists" and corrections:
        raise ValueError("the lists style takes no corrections")
    if facts > len(P.PREFERENCES) * len(KINDS):
        raise ValueError(f"at most {len(P.PREFERENCES) * len(KINDS)} facts are supported")
    for name, rate in (("tool_call_rate", tool_call_rate), ("parallel_rate", parallel_rate)):
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"{name} must be within [0, 1], got {rate}")
    lo, hi = filler_sentences
    if not 1 <= lo <= hi:
        raise ValueError(f"filler_sentences must be (min, max) with 1 <= min <= max, got {lo, hi}")
    for attempt in range(50):
        # A realistic filler number may, rarely, repeat a planted value somewhere else: then
        # the same seed is drawn again from a derived generator (still deterministic).
        rng = random.Random(seed if attempt == 0 else f"{seed}/{attempt}")
        gen = _Generator(
            rng,
            tool_call_rate,
            parallel_rate,
            (lo, hi),
            realistic=filler == "realistic",
            both_speakers=speakers == "both",
            style=style,
        )
        if style == "lists":
            plan = _list_plan(rng, turns, facts)
        else:
            kinds = [kinds_planted[i % len(kinds_planted)] for i in range(facts)]
            rng.shuffle(kinds)
            plan = dict(zip(sorted(rng.sample(range(turns), facts)), kinds, strict=True))
        if corrections:
            free = [t for t in range(turns) if t not in plan]
            pairs = rng.sample(free, 2 * corrections)
            for i in range(corrections):  # a statement, then its correction later
                first, then = sorted(pairs[2 * i : 2 * i + 2])
                plan[first], plan[then] = ("state", i), ("correct", i)
        for t in range(turns):
            gen.turn(t, plan.get(t))
        try:
            _check_unique(gen.messages, gen.facts)
            break
        except _Collision:
            if filler == "plain" and not corrections and style == "direct":
                raise  # the original family never collides: a bug, not bad luck
    else:  # pragma: no cover - fifty unlucky draws in a row
        raise AssertionError(f"seed {seed}: planted values keep colliding with filler")
    return Trajectory(
        seed=seed,
        messages=tuple(gen.messages),
        facts=tuple(gen.facts),
        turn_starts=tuple(gen.turn_starts),
        params={
            "turns": turns,
            "facts": facts,
            "filler": filler,
            "corrections": corrections,
            "speakers": speakers,
            **({} if style == "direct" else {"style": style}),
            "tool_call_rate": tool_call_rate,
            "parallel_rate": parallel_rate,
            "filler_sentences": [lo, hi],
        },
    )


WRITERS: dict[str, Callable[[random.Random, int, int], blind.Writer | blind2.Writer]] = {
    **blind.WRITERS,
    **blind2.WRITERS,
    "ledgers": ledgers.write,
    "ledger-updates": ledgers.write_updates,
    "tool-shapes": tool_shapes.write,
    "record-shapes": record_shapes.write,
    "slot-changes": slot_changes.write,
    "people-details": people.write,
}
"""The styles that write their own conversation: the blind ones (both sets) and ``ledgers``."""
STYLES = ("direct", "indirect", "nested-tool", "lists", "heldout", *WRITERS)
"""How facts are planted (see :func:`generate_trajectory`)."""
NESTED_KINDS: tuple[FactKind, ...] = ("code", "name", "date", "value")
"""The kinds a ``nested-tool`` trajectory plants (a preference is not a tool's field)."""


def _heldout_trajectory(
    seed: int, turns: int, facts: int, corrections: int, filler: str, speakers: str
) -> Trajectory:
    """The ``heldout`` style: its own domain, filler and plan (:mod:`evals.families.heldout`)."""
    if filler != "realistic" or speakers != "user":
        raise ValueError(
            "the heldout style writes its own dense filler and chooses who states each fact: "
            f"pass filler='realistic' and speakers='user', got {filler=} {speakers=}"
        )
    for attempt in range(50):
        rng = random.Random(f"heldout/{seed}/{attempt}")
        plan = heldout.plan_turns(rng, turns, facts, corrections)
        writer = heldout.Writer(rng)
        for t in range(turns):
            writer.turn(t, plan.get(t))
        try:
            _check_unique(writer.messages, writer.facts)
            break
        except _Collision:
            continue
    else:  # pragma: no cover - fifty unlucky draws in a row
        raise AssertionError(f"seed {seed}: planted values keep colliding with filler")
    return Trajectory(
        seed=seed,
        messages=tuple(writer.messages),
        facts=tuple(writer.facts),
        turn_starts=tuple(writer.turn_starts),
        params={
            "turns": turns,
            "facts": facts,
            "filler": filler,
            "corrections": corrections,
            "speakers": speakers,
            "style": "heldout",
        },
    )


def _blind_trajectory(
    seed: int, style: str, turns: int, facts: int, corrections: int, filler: str, speakers: str
) -> Trajectory:
    """A style of :mod:`evals.families.blind` or ``blind2``: its own writer, filler and plan."""
    if corrections or filler != "plain" or speakers != "user":
        raise ValueError(
            f"the {style} style writes its own filler and corrections: pass corrections=0, "
            f"filler='plain' and speakers='user', got {corrections=} {filler=} {speakers=}"
        )
    for attempt in range(50):
        try:
            writer = WRITERS[style](random.Random(f"{style}/{seed}/{attempt}"), turns, facts)
            _check_unique(writer.messages, writer.facts)
            break
        except (_Collision, Exhausted):  # a value pool used up draws again too
            continue
    else:  # pragma: no cover - fifty unlucky draws in a row
        raise AssertionError(f"seed {seed}: planted values keep colliding with filler")
    return Trajectory(
        seed=seed,
        messages=tuple(writer.messages),
        facts=tuple(writer.facts),
        turn_starts=tuple(writer.turn_starts),
        params={"turns": turns, "facts": facts, "style": style},
    )


def _list_plan(rng: random.Random, turns: int, facts: int) -> dict[int, Any]:
    """Turn -> kind for the ``lists`` style: lists of consecutive turns, one kind each."""
    size = L.LIST_LENGTH
    lists = -(-facts // size)
    kinds = list(KINDS)
    rng.shuffle(kinds)
    plan: dict[int, Any] = {}
    for k, block in enumerate(sorted(rng.sample(range(turns // size), lists))):
        for i in range(min(size, facts - k * size)):
            plan[block * size + i] = kinds[k % len(kinds)]
    return plan


class _Collision(AssertionError):
    """A planted value also occurs in another message."""


def _check_unique(messages: Sequence[dict[str, Any]], facts: Sequence[PlantedFact]) -> None:
    """Every fact's value and aliases occur only in its own message (a bug otherwise).

    A correction's stale value occurs only in the message that first stated it.
    """
    texts = [f" {normalize_text(message_text(m))} " for m in messages]
    for fact in facts:
        if fact.value not in message_text(messages[fact.message_index]):
            raise AssertionError(f"fact {fact.id} is not in message {fact.message_index}")
        forms = [f" {normalize_text(form)} " for form in (fact.value, *fact.aliases)]
        hits = [i for i, text in enumerate(texts) if any(form in text for form in forms)]
        if hits != [fact.message_index]:
            raise _Collision(f"fact {fact.id} ({fact.value!r}) occurs in messages {hits}")
        if fact.stale is not None:
            stale = f" {normalize_text(fact.stale)} "
            hits = [i for i, text in enumerate(texts) if stale in text]
            if hits != [fact.stale_index]:
                raise _Collision(f"fact {fact.id} stale {fact.stale!r} occurs in {hits}")
        for option in fact.rejected:  # an option not chosen: in the offer only
            form = f" {normalize_text(option)} "
            hits = [i for i, text in enumerate(texts) if form in text]
            if hits != [fact.message_index]:
                raise _Collision(f"fact {fact.id} option {option!r} occurs in {hits}")


class _Generator:
    """Writes one turn at a time; all randomness comes from ``rng``."""

    def __init__(
        self,
        rng: random.Random,
        tool_call_rate: float,
        parallel_rate: float,
        filler_sentences: tuple[int, int],
        *,
        realistic: bool = False,
        both_speakers: bool = False,
        style: str = "direct",
    ) -> None:
        self.rng = rng
        self.style = style
        self.realistic = realistic
        self.both_speakers = both_speakers
        self.corrections: dict[int, tuple[str, str, str, int]] = {}
        self.stated: set[tuple[str, str]] = set()  # (item, template) of each correction pair
        self.tool_call_rate = tool_call_rate
        self.parallel_rate = parallel_rate
        self.filler_sentences = filler_sentences
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": P.SYSTEM_PROMPT}]
        self.facts: list[PlantedFact] = []
        self.turn_starts: list[int] = []
        self.used: set[str] = set()
        self.preferences = list(P.PREFERENCES)
        rng.shuffle(self.preferences)
        self.decks: dict[str, list[str]] = {}
        self.frames: dict[str, tuple[L.ListFrame, list[str], list[str]]] = {}
        self.hidden_preferences = list(H.INDIRECT_PREFERENCES)
        if style == "indirect":
            rng.shuffle(self.hidden_preferences)

    # -- values -----------------------------------------------------------------------------

    def _fresh(
        self, make: Callable[[], tuple[str, tuple[str, ...]]]
    ) -> tuple[str, tuple[str, ...]]:
        """A value (and its aliases) not used before in this trajectory."""
        while True:
            value, aliases = make()
            if value not in self.used:
                self.used.add(value)
                return value, aliases

    def _code(self) -> tuple[str, tuple[str, ...]]:
        r, letters = self.rng, P.CODE_LETTERS
        return self._fresh(
            lambda: (f"{r.choice(letters)}{r.choice(letters)}-{r.randint(10000, 99999)}", ())
        )

    def _name(self) -> tuple[str, tuple[str, ...]]:
        r = self.rng
        return self._fresh(lambda: (f"{r.choice(P.FIRST_NAMES)} {r.choice(P.LAST_NAMES)}", ()))

    def _date(self) -> tuple[str, tuple[str, ...]]:
        r = self.rng

        def make() -> tuple[str, tuple[str, ...]]:
            year, month, day = r.randint(2024, 2027), r.randint(1, 12), r.randint(1, 28)
            name = P.MONTHS[month - 1]
            return f"{day} {name} {year}", (
                f"{name} {day}, {year}",
                f"{year}-{month:02d}-{day:02d}",
            )

        return self._fresh(make)

    def _number(self) -> tuple[str, tuple[str, ...]]:
        r = self.rng

        def make() -> tuple[str, tuple[str, ...]]:
            whole, cents = r.randint(1000, 99999), r.choice([c for c in range(1, 100) if c % 10])
            value = f"{whole}.{cents:02d}"
            # Written into a JSON tool result as a number, it must print the same.
            assert json.dumps(float(value)) == value
            return value, (f"{whole:,}.{cents:02d}",) if whole >= 10000 else ()

        return self._fresh(make)

    # -- messages ---------------------------------------------------------------------------

    def _count(self) -> tuple[str, tuple[str, ...]]:
        r = self.rng
        return self._fresh(
            lambda: (str(r.choice((r.randint(120, 1899), r.randint(2101, 9999)))), ())
        )

    def _noise(self, template: str) -> str:
        """``template`` with its realistic slots filled with fresh values."""
        r = self.rng
        makers: dict[str, Callable[[], str]] = {
            "{name}": lambda: self._name()[0],
            "{code}": lambda: self._code()[0],
            "{date}": lambda: self._date()[0],
            "{num}": lambda: self._count()[0],
            "{num2}": lambda: str(r.randint(2, 60)),
            "{month}": lambda: r.choice(P.MONTHS),
            "{time}": lambda: f"{r.randint(7, 21)}:{r.choice((0, 15, 30, 45)):02d}",
        }
        for slot, make in makers.items():
            while slot in template:
                template = template.replace(slot, make(), 1)
        return template

    def _say(self, role: str, content: str) -> int:
        self.messages.append({"role": role, "content": P.fill(content, self.rng)})
        return len(self.messages) - 1

    def _filler_request(self, request: str) -> str:
        if self.realistic and self.rng.random() < 0.6:
            return f"{request} {self._noise(self.rng.choice(P.REALISTIC_USER))}"
        return request

    def _filler_reply(self) -> str:
        r = self.rng
        lo, hi = self.filler_sentences
        body = [r.choice(P.ASSISTANT_SENTENCES) for _ in range(r.randint(lo, hi) - 1)]
        if self.realistic:
            body += [self._noise(r.choice(P.REALISTIC_ASSISTANT)) for _ in range(r.randint(1, 2))]
        return " ".join([r.choice(P.ASSISTANT_OPENERS), *body])

    def _exchange(self, first: P.Call, tool: object = None) -> list[int]:
        """Append a tool-calling assistant message and the results; return the results' indices.

        ``first`` is called, sometimes with one or two filler tools in parallel (never ``tool``
        twice); the returned indices follow call order, whatever order the results came in.
        """
        r = self.rng
        calls = [first]
        if r.random() < self.parallel_rate:
            others = [t for t in P.FILLER_TOOLS if t is not tool]
            calls += [t(r) for t in r.sample(others, r.randint(1, 2))]
            r.shuffle(calls)
        ids = [f"call_{r.getrandbits(64):016x}" for _ in calls]
        tool_calls = [
            {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(a)}}
            for cid, (name, a, _) in zip(ids, calls, strict=True)
        ]
        self.messages.append({"role": "assistant", "content": None, "tool_calls": tool_calls})
        order = list(range(len(calls)))
        if len(calls) > 1 and r.random() < 0.5:
            r.shuffle(order)  # parallel results may come back in any order
        where = [0] * len(calls)
        for i in order:
            result = {"role": "tool", "tool_call_id": ids[i], "content": json.dumps(calls[i][2])}
            self.messages.append(result)
            where[i] = len(self.messages) - 1
        return where

    # -- turns ------------------------------------------------------------------------------

    def turn(self, index: int, kind: Any) -> None:
        self.turn_starts.append(len(self.messages))
        r = self.rng
        if isinstance(kind, tuple):
            self._correction(index, *kind)
        elif kind is not None:
            self._plant(index, kind)
        elif r.random() < self.tool_call_rate:
            request, tool = r.choice(P.TOOL_REQUESTS)
            self._say("user", self._filler_request(P.fill(request, r)))
            self._exchange(tool(r), tool)
            self._say("assistant", self._filler_reply())
        else:
            self._say("user", self._filler_request(P.fill(r.choice(P.USER_REQUESTS), r)))
            self._say("assistant", self._filler_reply())

    def _correction(self, index: int, step: str, pair: int) -> None:
        """State a value (``"state"``), or replace it (``"correct"``): a correction fact."""
        r = self.rng
        if step == "state":
            first, then = r.choice(P.CORRECTIONS)
            item = self._correction_item(pair, first)
            value = self._count()[0]
            at = self._say("user", first.replace("{item}", item).replace("{v}", value))
            self.corrections[pair] = (then.replace("{item}", item), value, item, at)
            self._say("assistant", r.choice(P.ACKNOWLEDGEMENTS))
            return
        template, stale, _item, stale_at = self.corrections[pair]
        value = self._count()[0]
        where = self._say("user", template.replace("{v}", value))
        self._say("assistant", r.choice(P.ACKNOWLEDGEMENTS))
        self.facts.append(
            PlantedFact(
                id=f"f{len(self.facts):02d}",
                kind="correction",
                value=value,
                turn_index=index,
                message_index=where,
                role="user",
                stale=stale,
                stale_index=stale_at,
            )
        )

    def _correction_item(self, pair: int, template: str) -> str:
        """The item pair ``pair`` is about: never one another pair states in ``template``.

        Two pairs saying the same sentence about the same item would be one thing corrected
        twice: the second correction rightly replaces the first one's value, which its pair
        still expects. Items go round from ``pair``'s own; no randomness is drawn.
        """
        items = P.CORRECTION_ITEMS
        for k in range(len(items)):
            item = items[(pair + k) % len(items)]
            if (item, template) not in self.stated:
                self.stated.add((item, template))
                return item
        raise ValueError(f"more than {len(items)} corrections in one sentence")  # pragma: no cover

    def _plant(self, index: int, kind: FactKind) -> None:
        if self.style != "direct":
            self._plant_hidden(index, kind)
            return
        r = self.rng
        reply: str | None
        if kind == "value" or (kind == "code" and r.random() < 0.5):
            if kind == "value":
                value, aliases = self._number()
                request, make_value = r.choice(P.VALUE_TOOLS)
                call = make_value(r, float(value))
            else:
                value, aliases = self._code()
                request, make_code = r.choice(P.CODE_TOOLS)
                call = make_code(r, value)
            self._say("user", request)
            at = self._exchange(call)
            where = next(i for i in at if value in self.messages[i]["content"])
            reply = r.choice(P.AFTER_TOOL_REPLIES)
        elif kind == "date" and not self.both_speakers and r.random() < 0.4:
            value, aliases = self._date()
            request, template = r.choice(P.ASSISTANT_DATE_TURNS)
            self._say("user", request)
            where = self._say("assistant", template.replace("{v}", value))
            reply = None
        else:
            if kind == "preference":
                value, template, aliases = self.preferences.pop()
                self.used.add(value)
            else:
                value, aliases = {"code": self._code, "name": self._name, "date": self._date}[
                    kind
                ]()
                template = r.choice(P.USER_FACT_TEMPLATES[kind])
            if self.both_speakers and r.random() < 0.5:  # the other side says the same
                where = self._say("assistant", template.replace("{v}", value))
                reply = None
            else:
                where = self._say("user", template.replace("{v}", value))
                reply = r.choice(P.ACKNOWLEDGEMENTS)
        if reply is not None:
            self._say("assistant", reply)
        self._record(kind, value, aliases, index, where)

    def _record(
        self, kind: FactKind, value: str, aliases: tuple[str, ...], index: int, where: int
    ) -> None:
        fact = PlantedFact(
            id=f"f{len(self.facts):02d}",
            kind=kind,
            value=value,
            turn_index=index,
            message_index=where,
            role=str(self.messages[where]["role"]),
            aliases=aliases,
        )
        self.facts.append(fact)

    def _amount(self) -> tuple[str, tuple[str, ...]]:
        """A four-digit whole number that cannot be read as a year."""
        r = self.rng
        return self._fresh(lambda: (str(r.randint(2101, 9999)), ()))

    def _plant_hidden(self, index: int, kind: FactKind) -> None:
        """Plant ``kind`` the ``indirect``, the ``nested-tool`` or the ``lists`` way."""
        r = self.rng
        if self.style == "lists":
            self._plant_listed(index, kind)
            return
        if self.style == "indirect":
            if kind == "preference":
                value, template = self.hidden_preferences.pop()
                self.used.add(value)
                aliases: tuple[str, ...] = ()
            else:
                makers = {"code": self._code, "name": self._name, "date": self._date}
                value, aliases = makers.get(kind, self._amount)()
                deck = self.decks.setdefault(kind, [])
                if not deck:  # each frame once before any comes back
                    deck.extend(H.INDIRECT_TEMPLATES[kind])
                    r.shuffle(deck)
                template = deck.pop()
            where = self._say("user", template.replace("{v}", value))
            self._say("assistant", r.choice(P.ACKNOWLEDGEMENTS))
            self._record(kind, value, aliases, index, where)
            return
        stored: Any
        if kind == "date":
            day, aliases = self._date()
            value = aliases[1]  # ISO, as a JSON API writes it; the prose forms are aliases
            aliases = (day, aliases[0])
            stored = value
        elif kind == "value":
            value, aliases = self._number()
            stored = float(value)
        else:
            value, aliases = self._code() if kind == "code" else self._name()
            stored = value
        request, make = r.choice(H.NESTED_TOOLS)
        self._say("user", request)
        at = self._exchange(make(r, r.choice(H.NESTED_FIELDS[kind]), stored))
        where = next(i for i in at if value in self.messages[i]["content"])
        self._say("assistant", r.choice(P.AFTER_TOOL_REPLIES))
        self._record(kind, value, aliases, index, where)

    def _plant_listed(self, index: int, kind: FactKind) -> None:
        """The next item of ``kind``'s list, in the frame this trajectory picked for it."""
        r = self.rng
        if kind not in self.frames:
            frame = r.choice(L.LIST_FRAMES[kind])
            self.frames[kind] = (frame, r.sample(frame.a, len(frame.a)), [])
        frame, words_a, words_b = self.frames[kind]
        if not words_a:  # a second list of the same kind: its words come round again
            words_a.extend(r.sample(frame.a, len(frame.a)))
        if not words_b:
            words_b.extend(r.sample(frame.b, len(frame.b)))
        if kind == "preference":
            value, aliases = self._fresh(lambda: (r.choice(L.ALLERGENS), ()))
        else:
            makers = {"code": self._code, "name": self._name, "date": self._date}
            value, aliases = makers.get(kind, self._amount)()
        text = frame.template.replace("{a}", words_a.pop()).replace("{b}", words_b.pop())
        where = self._say("user", text.replace("{v}", value))
        self._say("assistant", r.choice(P.ACKNOWLEDGEMENTS))
        self._record(kind, value, aliases, index, where)
