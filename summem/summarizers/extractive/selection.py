"""Choosing the extractive summary's facts under a token budget, and writing them out.

:class:`Selection` is the knapsack of the extractive summarizer: candidates come in
pools (must-keep items, the previous summary's facts, the new span's facts), each pool ranked
best first, and :meth:`Selection.fill` takes them greedily up to a limit, merging any
near-duplicate into the fact already kept. A fact's cost is its line's tokens, plus its date
header's when it opens a new date group. Per-line costs only estimate the joined text's, so
:meth:`Selection.finish` measures the real text, spends what the estimates left over, and drops
the weakest facts if they overshot; the result never exceeds the budget.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from summem.summarizers.extractive.facts import digit_words
from summem.summarizers.extractive.layout import header, shared_label_lines
from summem.tokens.base import TokenCounter

__all__ = ["MAX_LINE_IDS", "Fact", "Selection", "bound_ids", "make_fact", "rank"]

MAX_LINE_IDS = 8
"""The most message ids one summary line records (``ids``, and each of ``supersedes`` and
``marks``). A line keeps its first source and its latest ones; ``"more"`` counts the ids left
out. Without a cap a sentence repeated all session long carried every repeat's id from round to
round: the record grew with the history (18k ids, 0.55 MB per summary), not with the summary."""

_NEAR_DUPLICATE = 0.8
_TOP_UP_PASSES = 2
_DISPLACE = 0.67
"""A record left out by the greedy fill may evict kept facts of less than this share of its
priority (see :meth:`Selection.displace`). 5 seeds, at the end at 4,000/3,000/1,000 (2,000/
1,500/400): ``tables`` 0.530 -> 0.610 (0.170 -> 0.190); at 0.5 the gain was half that, at
0.75 the held-out ``heldout`` lost a fact after 10 reductions at 2,000 (0.619 -> 0.571), see
``docs-notes/fidelity-round18-tables28.md``."""
_NEAR_MISS_TRIES = 4
"""Facts left out by a small estimate overshoot that :meth:`Selection.finish` measures."""
_NEAR_MISS_SLACK = 2
"""Tokens by which a fact's estimate may exceed the room and still be measured."""


@dataclass(eq=False)
class Fact:
    """One candidate line of the summary."""

    line: str
    """``- speaker: body``, without its date."""
    day: str | None
    """The date group it belongs to, if its date is known."""
    priority: float
    ids: list[str]
    order: tuple[int, int, int]
    """(0 must-keep | 1 previous summary | 2 new span, position, sentence)."""
    words: frozenset[str]
    digits: frozenset[str]
    cost: int | None = None
    state: int = 0
    """0 candidate, 1 selected, 2 merged into another fact or rejected."""
    pass_no: int = field(default=0, repr=False)
    probes: list[str] | None = field(default=None, repr=False)
    supersedes: list[str] = field(default_factory=list, repr=False)
    """Ids of the messages whose statements this fact replaced (see :mod:`.supersede`)."""
    recorded: float | None = field(default=None, repr=False)
    """The score to record in provenance when ``priority`` was discounted for this round."""
    corrected_by: Fact | None = field(default=None, repr=False)
    """A later fact that probably corrects this one (see :mod:`.supersede`): this one is
    kept only beside it."""
    marks: list[str] = field(default_factory=list, repr=False)
    """Ids of the messages whose statements this fact probably corrects (kept only with it)."""
    leans_on: Fact | None = field(default=None, repr=False)
    """The fact whose line this one means nothing without ("Here you go, 16 rows." after a
    tool result's line, see :func:`.context.leans_on_result`): this one is kept only beside
    it."""
    leans: list[str] = field(default_factory=list, repr=False)
    """Ids of the messages this fact leans on (recorded in provenance as ``"leans"``, so the
    next round links it to the line citing them again)."""
    capped: bool = field(default=False, repr=False)
    """A repeated report: counts against :attr:`Selection.tool_limit`."""
    merged: bool = field(default=False, repr=False)
    """Merged into a kept near-duplicate (its content is in the summary)."""
    core: str | None = field(default=None, repr=False)
    """The text selection chose, when ``line`` was expanded to the whole message (recorded
    in provenance as ``"core"``: the next round selects on it again)."""
    absorbed: list[tuple[str, float]] = field(default_factory=list, repr=False)
    """Other kept sentences of the message ``line`` was expanded to, with their scores
    (recorded in provenance as ``"absorbed"``: the next round selects on each again)."""
    whole: str | None = field(default=None, repr=False)
    """The whole short message a carried-over fact was expanded to (its ``line`` is the core)."""

    more: int = field(default=0, repr=False)
    """Source ids left out of ``ids`` by the cap (see :data:`MAX_LINE_IDS`)."""

    own: int = field(default=1, repr=False)
    """How many of the first ``ids`` the line's words come from (2 for a reply kept with the
    message it answers): the cap never cuts them, only repeats merged in later."""
    seen: int = field(default=0, repr=False)
    """The occasions its template has been said on so far (0: none counted; see
    :mod:`.templates`), recorded in provenance as ``"seen"`` so the count outlives the
    template memory."""
    said: int = field(default=0, repr=False)
    """The messages its sentence has been said in so far, as the repeats rule counts them
    (0: not counted), recorded as ``"said"``: a repeat not merged into the line still counts."""

    def merge_ids(self, ids: Sequence[str], more: int = 0) -> None:
        """Add ``ids`` to the fact's provenance (each once), within :data:`MAX_LINE_IDS`.

        ``more`` is what the merged fact had already left out. An id merged again after it was
        left out is counted again: ``more`` is how many merges the list does not show.
        """
        for i in ids:
            if i not in self.ids:
                self.ids.append(i)
        self.ids, self.more = bound_ids(self.ids, self.more + more, self.own)


def bound_ids(ids: list[str], more: int = 0, own: int = 1) -> tuple[list[str], int]:
    """``ids`` within :data:`MAX_LINE_IDS`, and ``more`` + those cut.

    Kept: the first ``own`` (what the line was made from: its first source, or a reply and
    the message it answers) and the latest. A reply line that repeats a question asked all
    session long ("..., in reply to user: What's on my to-do list?") keeps its own message's
    id, not only the question's repeats.
    """
    if len(ids) <= MAX_LINE_IDS:
        return ids, more
    own = max(1, min(own, MAX_LINE_IDS - 1))
    cut = len(ids) - MAX_LINE_IDS
    return [*ids[:own], *ids[own + cut :]], more + cut


def make_fact(
    line: str,
    day: str | None,
    priority: float,
    ids: list[str],
    order: tuple[int, int, int],
    words: frozenset[str],
) -> Fact:
    """A candidate fact; ``words`` decide what it repeats (its digits must all be known)."""
    return Fact(line, day, priority, ids, order, words, digit_words(words))


def rank(fact: Fact) -> tuple[float, int, int, int]:
    """Best first; ties go to the most recent fact, then to a stable position."""
    return (-fact.priority, -fact.order[0], -fact.order[1], fact.order[2])


def _weakness(fact: Fact) -> tuple[bool, float, int, int]:
    """Smallest first: not must-keep, lowest priority, oldest."""
    return (fact.order[0] == 0, fact.priority, fact.order[0], fact.order[1])


class _DedupIndex:
    """Inverted index over the kept facts' words; finds the kept fact a candidate repeats.

    A near-duplicate must hold at least ``_NEAR_DUPLICATE`` of the candidate's ``n`` words, so
    it holds at least one of ANY ``n - ceil(0.8 n) + 1`` of them: only those postings are
    probed (prefix filtering), which keeps the check cheap when common words appear in many
    facts. Every match is found whichever words are probed, and the earliest kept match wins,
    so the result never depends on set iteration order (or ``PYTHONHASHSEED``).
    """

    def __init__(self) -> None:
        self._postings: dict[str, list[Fact]] = {}
        self._seq: dict[int, int] = {}

    def find(self, fact: Fact) -> Fact | None:
        n = len(fact.words)
        if not n:
            return None
        if fact.probes is None:  # any k words will do; the rarest so far are the cheapest
            k = n - math.ceil(_NEAR_DUPLICATE * n) + 1
            postings = self._postings
            fact.probes = sorted(fact.words, key=lambda w: (len(postings.get(w, ())), w))[:k]
        best: Fact | None = None
        for w in fact.probes:
            for kept in self._postings.get(w, ()):
                if kept.state != 1 or not fact.digits <= kept.digits:
                    continue  # not kept, or the candidate has a new number or code
                if best is not None and self._seq[id(kept)] >= self._seq[id(best)]:
                    continue
                common = len(fact.words & kept.words)
                if common == n or common / (n + len(kept.words) - common) >= _NEAR_DUPLICATE:
                    best = kept
        return best

    def add(self, fact: Fact) -> None:
        self._seq.setdefault(id(fact), len(self._seq))
        for w in fact.words:
            self._postings.setdefault(w, []).append(fact)


class Selection:
    """The facts chosen so far, their estimated cost, and the date groups they open."""

    def __init__(self, counter: TokenCounter, budget: int) -> None:
        self.counter = counter
        self.budget = budget
        self.used = 0
        self._index = _DedupIndex()
        self._groups: dict[str, int] = {}
        self._hosts: set[int] = set()
        """Facts (by ``id``) another fact was merged into (see :meth:`displace`)."""
        self._header_cost: dict[str, int] = {}
        self.tool_limit: int | None = None
        """Most tokens repeated tool reports (``Fact.capped``) may take while set (None: no
        limit)."""
        self.tool_used = 0

    def _opening_cost(self, day: str | None) -> int:
        if day is None or self._groups.get(day):
            return 0
        cost = self._header_cost.get(day)
        if cost is None:
            cost = self._header_cost[day] = self.counter.count_text(header(day) + "\n")
        return cost

    def fill(self, pool: Sequence[Fact], limit: int, pass_no: int = 0) -> None:
        """Take facts of ``pool`` in order while the estimated total stays within ``limit``."""
        for fact in pool:
            room = limit - self.used
            if room < 1:
                return
            if fact.state or (fact.cost is not None and fact.cost > room):
                continue
            if _orphan(fact.leans_on):
                continue  # not before what it leans on: a later pass may take both
            dup = self._index.find(fact)
            if dup is not None:
                dup.merge_ids(fact.ids, fact.more)
                fact.state, fact.merged = 2, True
                self._hosts.add(id(dup))
                continue
            if fact.cost is None:
                fact.cost = self.counter.count_text(fact.line + "\n")
            cost = fact.cost + self._opening_cost(fact.day)
            cap = self.tool_limit
            if fact.capped and cap is not None and self.tool_used + cost > cap:
                continue
            if cost <= room:
                fact.state, fact.pass_no = 1, pass_no
                self.used += cost
                self.tool_used += cost if fact.capped else 0
                self._index.add(fact)
                if fact.day is not None:
                    self._groups[fact.day] = self._groups.get(fact.day, 0) + 1

    def displace(
        self,
        pool: Sequence[Fact],
        kept: Sequence[Fact],
        tries: int,
        eligible: Callable[[Fact], bool],
    ) -> None:
        """Let each of the best ``tries`` ``eligible`` facts left out take much weaker ones' room.

        A greedy fill by rank skips a fact that does not fit the gap left and fills the gap
        with shorter, weaker ones: a 50-token table record at 3.9 lost the last room of a
        1,000-token summary to six 8-token lines at 1.45 ("24 stock lines."), round after
        round. A fact left out (best first) that ``eligible`` holds for evicts the weakest kept
        facts, weakest first, each of less than :data:`_DISPLACE` of its priority (never a
        must-keep one), when that frees room for it; else nothing changes. The evicted facts
        are candidates again (the finish's top-up may take them back). A fact another was
        merged into is never evicted: the merged one (a correction, say) counts as kept, and
        its stale line would stand alone.
        """
        weak = sorted((f for f in kept if f.state == 1 and f.order[0] != 0), key=_weakness)
        for fact in [f for f in pool if f.state == 0 and eligible(f)][:tries]:
            if fact.cost is None or _orphan(fact.leans_on) or self._index.find(fact) is not None:
                continue
            need = fact.cost + self._opening_cost(fact.day) - (self.budget - self.used)
            out: list[Fact] = []
            for victim in weak:
                if need <= 0 or victim.priority >= fact.priority * _DISPLACE:
                    break
                if victim.state == 1 and id(victim) not in self._hosts:
                    out.append(victim)
                    need -= victim.cost or 0
            if need > 0 or not out:
                continue
            for victim in out:
                self._drop(victim)
            self.fill([fact], self.budget)
            if fact.state != 1:  # not at today's call site (no tool limit then); kept safe
                for victim in out:
                    self.fill([victim], self.budget)
            weak = [f for f in weak if f.state == 1]

    def _drop(self, fact: Fact) -> None:
        """Undo :meth:`fill`'s taking of ``fact`` (its cost, its date group's count)."""
        fact.state = 0
        self.used -= fact.cost or 0
        self.tool_used -= (fact.cost or 0) if fact.capped else 0
        if fact.day is not None:
            self._groups[fact.day] -= 1
            if not self._groups[fact.day]:
                self.used -= self._opening_cost(fact.day)

    def take_one(self, pool: Sequence[Fact], limit: int) -> None:
        """Take the first fact of ``pool`` that fits, unless one is taken already."""
        if any(f.state == 1 for f in pool):
            return
        for fact in pool:
            if fact.state == 0:
                self.fill([fact], limit)
                if fact.state:
                    return

    def finish(self, everything: list[Fact]) -> list[Fact]:
        """Fit the real text to the budget; return the kept facts in the order written."""
        count = self.counter.count_text
        _drop_orphaned_stale(everything)
        text = _text(everything)
        exact = count(text) if text else 0
        pool = sorted(everything, key=rank)
        # The per-line estimates are conservative for most tokenizers; spend what they left.
        for pass_no in range(1, _TOP_UP_PASSES + 1):
            if exact >= self.budget or not text:
                break
            self.used = 0
            self.fill(pool, self.budget - exact, pass_no)
            if not self.used:
                break
            candidate = _text(everything)
            size = count(candidate)
            if size > self.budget:
                for fact in everything:
                    if fact.pass_no == pass_no and fact.state == 1:
                        fact.state = 0  # undo this pass; it did not fit after all
                break
            text, exact = candidate, size
        text, exact = self._fit_near_misses(pool, everything, text, exact)
        if _drop_orphaned_stale(everything):
            text = _text(everything)
            exact = count(text) if text else 0
        while exact > self.budget:  # an estimate was optimistic: drop the weakest fact
            weakest = min((f for f in everything if f.state == 1), key=_weakness, default=None)
            if weakest is None:
                break
            weakest.state = 2
            text = _text(everything)
            exact = count(text) if text else 0
        _drop_orphaned_stale(everything)  # only ever shortens the text
        return _ordered(f for f in everything if f.state == 1)

    def _fit_near_misses(
        self, pool: list[Fact], everything: list[Fact], text: str, exact: int
    ) -> tuple[str, int]:
        """Try the best facts left out whose estimate missed the room by a little, measured.

        A line's estimate counts its own rounding; joined, it may fit exactly. At most
        :data:`_NEAR_MISS_TRIES` facts are measured, best first, so the cost stays linear.
        """
        tries = 0
        for fact in pool:
            room = self.budget - exact
            if room < 1 or tries >= _NEAR_MISS_TRIES:
                break
            if fact.state or fact.cost is None or fact.cost > room + _NEAR_MISS_SLACK:
                continue
            if _orphan(fact.leans_on):
                continue
            if self._index.find(fact) is not None:
                continue  # a repeat of a kept fact
            tries += 1
            fact.state = 1
            candidate = _text(everything)
            size = self.counter.count_text(candidate)
            if size <= self.budget:
                text, exact = candidate, size
                self._index.add(fact)
            else:
                fact.state = 0
        return text, exact

    @staticmethod
    def render(kept: Sequence[Fact]) -> tuple[list[str], list[dict[str, Any]]]:
        """The summary's lines and each fact line's provenance entry.

        A line following one of the same speaker in the same date group is written without
        its label (:func:`.layout.shared_label_lines`).
        """
        written: list[str] = []  # date headers and full fact lines, in order
        entries: list[dict[str, Any]] = []
        day: str | None = None
        for fact in _ordered(kept):
            if fact.day is not None and fact.day != day:
                written.append(header(fact.day))
            day = fact.day if fact.day is not None else day
            ids, more = bound_ids(list(fact.ids), fact.more, fact.own)
            entry: dict[str, Any] = {"line": len(written), "ids": ids}
            if more:
                entry["more"] = more
            if fact.own > 1:
                entry["own"] = fact.own
            if fact.order[0] != 0:
                score = fact.priority if fact.recorded is None else fact.recorded
                entry["score"] = round(score, 4)
            if fact.supersedes:
                entry["supersedes"] = fact.supersedes[-MAX_LINE_IDS:]  # the latest
            if fact.marks:
                entry["marks"] = fact.marks[-MAX_LINE_IDS:]
            if fact.leans:
                entry["leans"] = fact.leans[-MAX_LINE_IDS:]
            if fact.core is not None:
                entry["core"] = fact.core
            if fact.seen > 1:
                entry["seen"] = fact.seen
            if fact.said > 1:
                entry["said"] = fact.said
            if fact.absorbed:
                entry["absorbed"] = [[text, round(score, 4)] for text, score in fact.absorbed]
            entries.append(entry)
            written.append(fact.line)
        lines: list[str] = []
        at: list[int] = []  # the physical line of each written one (a blank line may come first)
        for group in shared_label_lines(written):
            lines.extend(group)
            at.append(len(lines) - 1)
        for entry in entries:
            entry["line"] = at[entry["line"]]
        return lines, entries


def _drop_orphaned_stale(facts: list[Fact]) -> bool:
    """Drop each kept fact whose probable correction, or the line it leans on, is not kept.

    Return whether any was. A stale value never stands alone, nor a line that means nothing
    without another (:attr:`Fact.leans_on`). Repeated until nothing changes: in a chain
    A -> B -> C, dropping B (its correction C lost) leaves A without B, whatever their order in
    ``facts``.
    """
    dropped, changed = False, True
    while changed:
        changed = False
        for fact in facts:
            if fact.state == 1 and (_orphan(fact.corrected_by) or _orphan(fact.leans_on)):
                fact.state = 2
                dropped = changed = True
    return dropped


def _orphan(needed: Fact | None) -> bool:
    """Whether a fact needed beside another is left out (not kept, nor merged into one)."""
    return needed is not None and needed.state != 1 and not needed.merged


def _ordered(facts: Any) -> list[Fact]:
    """Facts as written: undated first, then in conversation order (old facts first)."""
    return sorted(facts, key=lambda f: (f.day is not None, f.order))


def _text(facts: list[Fact]) -> str:
    return "\n".join(Selection.render([f for f in facts if f.state == 1])[0])
