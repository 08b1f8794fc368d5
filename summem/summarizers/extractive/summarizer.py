"""A deterministic, offline summarizer: keep the sentences and values an assistant needs later.

The embedded default when no model is configured and the last real step of a fallback chain
(before plain truncation). It calls no model and touches no network, and it is linear in the
span: a few milliseconds for 200 chat messages.

How it works:

1. Every message is split into sentences (and at dashes between clauses), each stripped of
   the interjections and forms of address around it and scored by ``_facts.score_sentence``
   (identifiers, numbers, dates, names, first-person events and plans, decisions,
   preferences, open tasks). Greetings, thanks, praise, other filler and bare questions score
   0 and are dropped. A statement with a question joined to it ("..., so could you ...?") is
   two sentences, the told and the asked (``split_asked``); a user's long statement scores
   as the unit of its clauses when that is higher (:func:`_clause_score`), so a detail said
   in passing inside it is not outscored by shorter chatter. A statement about the user
   made in passing where no line carries it (a clause of a question, or one a dash split
   off and the units left out: "..., as my son's asthma flares up in the cold, so what
   ...?") is a candidate of its own (:func:`_asides`). A sentence whose words are new
   to the memory (not in the previous summary, its remembered templates, or earlier in the
   span) gains up to ``_W_NOVEL`` in proportion to its share of such words: new information
   beats a repeated frame, with no word list (``docs-notes/fidelity-round4.md``). A
   message's best sentence stands for it; its other sentences count for less unless they
   bring a number of their own. A bracketed
   date opening a message (``"[1:56 pm on 8 May, 2023] Hey!"``) is its timestamp, not its
   content; a message with no timestamp of its own is dated like the one before it. A tool
   result becomes one compact fact with the call that produced it, identifying fields first,
   arguments not repeated:
   ``create_refund(order_id=BW-1) -> refund_id=RF-2; status=approved; expected_by=
   2025-03-21`` (see :mod:`summem.summarizers.extractive.tool_facts`).
2. Exact repeats are merged; near-duplicates (same words, no new number or code) are merged
   into the fact already kept, adding their message ids to its provenance. A sentence said
   over and over with only its values changed is a template, and each instance is discounted
   once there are three, counting those of earlier reductions (remembered in
   ``extra["templates"]``; see :mod:`summem.summarizers.extractive.templates`). That holds
   for a sentence with a correction word too when its very words come back around a new
   value ("Parcel XZ-2081-A turned up, it was the wrong size of course.", each round):
   stock small talk, not an update (``ablate=["stock_updates"]``).
3. Facts compete for ``request.max_tokens`` by score per length. **Carry-over rule:** facts
   of the previous summary may first take up to ``carry_share`` (default half) of the
   budget, best first; each speaker's best facts then claim an equal part of
   ``speaker_share`` of the room left; the rest of the budget goes to the best remaining
   facts, old or new. So a long run of reductions keeps the strongest facts of every
   period, not the latest ones: new filler cannot evict old strong facts, old facts cannot
   take more than their share, and under pressure the weakest facts go first, whatever
   their age. A ``new_share`` above 0 (default 0) also promises the new span's best facts
   that share of the budget, and at least its best fact that fits; every eval measured it
   as a loss (it evicts older, stronger facts; see ``evals/README.md``), so it is off
   unless asked for. ``must_keep`` items come first, always. Last, each of the best table
   records left out may take the room of kept facts of less than two thirds of its score,
   weakest first (:meth:`.selection.Selection.displace`, ``ablate=["displace"]``): a greedy fill
   skips a record that misses the last gap, and the shares above took short weak lines
   before it.
4. The kept facts are written one per line, in conversation order (old facts first), under
   date headers (see :mod:`summem.summarizers.extractive.layout`)::

       [8 May 2023]
       - Caroline: I went to a support group yesterday.
       - I'm going to a transgender conference this month.
       - tool: lookup_order(order_id=A17) -> status=shipped

   A run of one speaker's lines carries the label once (the second line above is
   Caroline's). The next round parses the lines back into facts verbatim, with their dates
   and labels, so a fact
   survives unchanged until it is outscored; its score is kept in the provenance, so old and
   new facts compete on the same scale.

The result never exceeds the budget under the request's own counter: the final text is
measured with ``count_text`` and the weakest facts are dropped until it fits.

Provenance: ``SummaryOutput.extra["provenance"]`` is a list of
``{"line": i, "ids": [...], "score": s}``, the message ids each fact line came from (header
lines have no entry); lines carried over keep the ids the previous summary recorded (read from
``request.previous_info.extra``). A line records at most :data:`~.selection.MAX_LINE_IDS` ids:
its first source and its latest ones, with ``"more": n`` counting those left out (a sentence
repeated all session long), so a summary's record is O(its lines), not O(history); the same cap
keeps the latest ``"supersedes"``, ``"marks"`` and ``"leans"`` (the tool result a line
presenting it leans on, see :mod:`.context`). The reducer's ``uncovered_ids`` may then
list a repeat of a kept line that fell to the cap (``recall`` still finds it).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Collection, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, NamedTuple

from summem._flow import Flow, done
from summem.errors import ConfigurationError
from summem.messages import Message
from summem.summarizers.base import SummaryOutput, SummaryRequest, previous_extra
from summem.summarizers.clip import clip_to_tokens
from summem.summarizers.extractive.context import (
    answered_sentence,
    antecedent,
    aside_statements,
    asks_the_user,
    is_bare_reply,
    leans_on_previous,
    leans_on_result,
    names_nothing_alone,
    says_nothing,
    units,
)
from summem.summarizers.extractive.described import BEFORE, may_describe, row_nouns
from summem.summarizers.extractive.facts import (
    SCORING_HEURISTICS,
    asks,
    compact_sentence,
    content_words,
    digit_words,
    fold,
    names_a_name,
    score_sentence,
    split_sentences,
    tokenize,
)
from summem.summarizers.extractive.layout import day_of, leading_stamp, summary_lines
from summem.summarizers.extractive.lexicon import STOPWORDS
from summem.summarizers.extractive.scripts import script_words_scope
from summem.summarizers.extractive.selection import (
    MAX_LINE_IDS,
    Fact,
    Selection,
    bound_ids,
    make_fact,
    rank,
)
from summem.summarizers.extractive.supersede import (
    CORRECTION_WORDS,
    bare_correction,
    holds_value,
    link_marks,
    mark,
    negated,
    relayed_changes,
    replaced_values,
    supersede,
    value_words,
)
from summem.summarizers.extractive.tables import (
    MAX_CITED,
    MAX_REMEMBERED,
    Echoed,
    Said,
    compact_table,
    key_columns,
    named_by,
    parse_record,
    readers,
    recall_table,
    referred_rows,
    remember,
    said_words,
    shown,
    table_words_scope,
    updated_rows,
)
from summem.summarizers.extractive.templates import (
    COUNTED_BY,
    MIN_INSTANCES,
    POWER,
    discount_templates,
    read_memory,
    read_open_runs,
    write_memory,
    write_open_runs,
)
from summem.summarizers.extractive.text_tables import Table
from summem.summarizers.extractive.tool_facts import (
    call_arguments,
    compact_call,
    min_rows,
    read_table,
    table_referred,
    table_size,
    tool_body,
)
from summem.summarizers.render import content_text, format_call, message_timestamp, tool_names

__all__ = ["FORMAT", "HEURISTICS", "ExtractiveSummarizer", "length_density"]

FORMAT = "summem.extractive/3"
"""Recorded in ``extra["format"]``: the layout described in :mod:`.layout` (3: a run of one
speaker's lines carries the label once)."""

_SPACE_RE = re.compile(r"\s+")
_SPEAKER_RE = re.compile(r"[\s:\[\]]+")
_TOOL_BASE = 0.5
"""A tool result is a fact by construction: it starts above a plain sentence."""
_TOOL_CAP = 6.0
"""At most this much from a tool result's signals: a JSON payload is full of numbers and
codes, and a long one must not outrank every sentence of the conversation."""
_ARGS_WEIGHT = 0.5
"""What a call's arguments count for beside its result (what the assistant already knew)."""
_CAPITALISED_RE = re.compile(r"\b[A-Z][a-z]+\b")
_FRESH = 0.5
"""A tool result at least this share of whose names and codes are new is no repeated report
(:func:`_tool_news`). Without it, the tenth list of one tool kept a third of its score however
new its rows, and by the end of a long run the records a user came back to lost to small talk
(``docs-notes/fidelity-round15-tableend.md``)."""
_REPORTS = 3
"""From its third result on, a tool's results are discounted as repeated reports."""
_TOOL_SHARE = 0.4
"""Most of the budget repeated tool reports may take while other facts compete (see
:meth:`ExtractiveSummarizer._build`)."""
_NEWS_CAP = 0.75
"""A tool result keeping less of its score than this for its news is a repeated report."""
_JOINED = 0.5
"""What the other sentences of a unit (see :mod:`.context`) add to its best one's score."""
_MORE_ROWS_RE = re.compile(r"\(\+(\d+) rows\)")
_MORE_TAIL_RE = re.compile(r" \(\+\d+ rows\)$")
_MEMORY_ROUNDS = 3
"""Reductions a table is remembered for. A user comes back to a table soon or not at all, and
every table remembered longer is one more that a passing word can seem to name (with the 6
latest tables remembered however old, the held-out blind2-preferences family lost 0.075 of its
facts after 10 reductions, 5 seeds). So after the first reduction a row comes back only when a
user's message names it alone by a rare cell of a key column (:func:`.tables.key_columns`: the
row's name, not a value that happens to be its alone; a code or a name of two words or more:
not "Okonkwo", nor a time, amount or date, which may be said in passing), and gains
:data:`_W_REFERRED`, not :data:`_W_RECALLED`. Measured against one reduction (5 seeds, after
10 reductions at 4,000/3,000/1,000): ``ledgers`` 0.538 -> 0.600, held-out ``blind4-tables``
0.464 -> 0.571 and ``tables`` 0.674 -> 0.721 (see ``docs-notes/tables.md``, fifth round)."""
_MAX_RECORD = 400
"""The longest table record brought back from memory (as a tool result's own)."""
_W_REFERRED = 2.0
"""What a table gains when a later message refers to its rows: the conversation used it."""
_W_RECALLED = 4.0
"""What a remembered table's row gains when a user's message names it and no other row of
the table: the one row the conversation came back to, as one short line. Measured at
4,000/3,000/1,000 after 10 reductions / at the end (10 seeds): ``ledgers`` 0.50 / 0.35 ->
0.55 / 0.43, ``tables`` 0.59 / 0.29 -> 0.65 / 0.38, ``heldout`` 0.935 / 0.900 -> 0.940 /
0.905; at 2,000/1,500/400 ``ledgers`` 0.07 -> 0.21, ``tables`` 0.10 -> 0.32 after 10 (and
3 to 4 facts of 80 to 180 lost on prose families there, see ``docs-notes/tables.md``). With
the bonus for any named row (up to :data:`~.tables.MAX_CITED`), rows named in passing
crowded out stated facts (``heldout`` 0.900 -> 0.886 at the end, as when
:data:`_W_REFERRED` was given to recalled rows before). A table of the span whose one row a
later user message of the same span names by a key cell (:func:`_keyed_alone`) gains it too:
the same evidence (with :data:`_W_REFERRED` alone there, ``tables`` 0.744 -> 0.837 after 10 at
4,000, 5 seeds; seventh round of ``docs-notes/tables.md``)."""
_W_DECISION = 1.5
"""What deciding adds to the question a bare reply answers (a decision's weight)."""
_W_NOVEL = 2.5
"""What a sentence whose words were all never seen before (in the previous summary, the
templates it remembers, or earlier in the span) adds to its score, in proportion to its share
of such words: new information, whatever its length (see :func:`_novel_share`). A sentence
saying it updates something (a word of :data:`~.lexicon.CORRECTION_WORDS`, the class
supersession and the template discount already read) counts as wholly new: a correction
repeats the words of what it corrects, and without this lost to fresher sentences when the
stale line was gone (the gate's ``corrections``, 30 seeds: new value at the end 0.99 -> 0.94)."""
_KEPT = 3
"""The first field of a kept turn's line's ``order``: after every candidate (see
:meth:`ExtractiveSummarizer._kept_lines`)."""
_BARE_REACH = 3
"""How many messages back a bare correction ("Scratch that, five.") looks for what it revises:
the other speaker's confirmation, or the speaker's own request before an "Sure, noted."."""
_DISPLACE_TRIES = 8
"""How many of the best table records the greedy fill left out may take weaker facts' room
(:meth:`.selection.Selection.displace`): each try reads the kept facts once."""
_SAME_MESSAGE = 0.75
"""Weight left to a message's other sentences once its best one stands for it."""
_SELECTION_HEURISTICS = (
    "carry_share",
    "displace",
    "new_share",
    "speaker_share",
    "second_sentence",
    "templates",
    "supersession",
    "negated",
    "renamed",
    "bare_corrections",
    "length_density",
    "compaction",
    "leading_stamp",
    "tool_cap",
    "context",
    "tool_novelty",
    "fresh_reports",
    "table_rows",
    "table_memory",
    "table_recall",
    "table_changes",
    "table_noun_columns",
    "table_bound_rows",
    "novelty",
    "clauses",
    "repeats",
    "template_counts",
    "asides",
    "stock_updates",
    "kept_rows",
    "kept_bound_rows",
    "kept_memory_rows",
    "answers",
    "named_answers",
    "table_newest",
    "result_context",
    "table_shapes",
    "deep_records",
    "transposed_tables",
    "small_tables",
    "asked_rows",
    "asked_rank",
    "spaced_columns",
    "grouped_reports",
    "delimited_rows",
    "whole_cells",
    "script_words",
    "embedded_values",
    "tool_changes",
    "spoken_changes",
    "borrowed_subject",
    "chain_ends",
    "user_changes",
)
HEURISTICS: tuple[str, ...] = (*SCORING_HEURISTICS, *_SELECTION_HEURISTICS)
"""Every heuristic ``ExtractiveSummarizer(ablate=...)`` can switch off, for ablations: the
scoring signals of :data:`~summem.summarizers.extractive.facts.SCORING_HEURISTICS`, then the
selection rules (a share set to 0, the second-sentence and template discounts, supersession,
the per-length density, sentence compaction, reading a bracketed stamp as a date, the cap on a
tool result's score)."""
_LINE_CHARS = 120.0
"""A line this long counts its score once more against itself (see :func:`length_density`)."""


class ExtractiveSummarizer:
    """Keeps the facts of the span (and of the previous summary) that fit the budget.

    Args:
        name: recorded as the summary's author.
        carry_share: share of the budget the previous summary's best facts may take before
            new facts compete for it (0 to 1).
        new_share: share of the budget the new span's best facts may take next (0 to 1);
            above 0, the new span keeps at least its best fact that fits. Default 0: the
            new span's facts compete on score alone (what every eval measured best).
        speaker_share: share of the room left that the speakers' best facts claim next, in
            equal parts (0 to 1), so a talkative side cannot crowd out a quiet one. The rest
            of the budget goes to the best facts left, old or new, whoever said them.
        max_line_chars: longest sentence kept; longer ones are split at clauses, then clipped.
        tables: write a table in a tool result (4 rows or more: markdown, CSV or TSV,
            JSON columns and rows, or a list of records) as its header and rows: the rows a
            later user message names (says a cell no other row has), else the rows in order
            while they fit (:mod:`.tables`). A table a user names a row of gains
            :data:`_W_REFERRED`; a carried record whose rows a new span names keeps just those;
            a table evicted before anyone came back to it is remembered for three reductions
            (``extra["tables"]``) and the rows named then come back (after the first, only a
            row named alone by a rare key cell, see :data:`_MEMORY_ROUNDS`); a row a newer list
            repeats keeps the older list's changed cells on its line, ``new (was old)``
            (:func:`_changes`; a column named as the rows are, "the Okonkwo invoice", is not
            asked, ``ablate=["table_noun_columns"]``); a record whose row a user's line names
            ranks with that line, cut to that row (:meth:`_bind_named_rows`,
            ``ablate=["table_bound_rows"]``). The user's turns the view keeps
            (``request.kept``, up to the first table shown among them) are read as if they
            followed the span, for this alone: a table of the span none of whose rows the span
            names shows the rows they name (``ablate=["kept_rows"]``), a remembered table's
            row they name comes back (``ablate=["kept_memory_rows"]``), a record whose row
            they name ranks with them for the round, uncut (``ablate=["kept_bound_rows"]``).
            No word of a kept turn is ever put in the summary: it stands for the span and
            the previous summary alone. Default on since issue
            #29 (5 seeds, 4,000/3,000/1,000, after 10 reductions: held-out ``tables`` 0.163 ->
            0.744, ``ledgers`` 0.156 -> 0.585; the other families unchanged but for a fact or
            two on two held-out ones, see ``docs-notes/tables.md``). Off, a table is flattened
            field by field like any other result, and nothing is remembered.
        verbatim_words: once the facts are chosen, room left over in the budget is spent
            on the user's own words: a kept sentence of a user message of at most this many
            words becomes the whole message, best facts first, while the summary still fits
            (see :func:`_expand_user_messages`); 0: off. The expanded line is recorded with
            its core (and the other kept sentences it took in) and the next round selects on
            them again, so the expansion never takes room from a fact nor loses one. At 40
            (default), 10 seeds: realistic (2,000) after 10 reductions 0.882 -> 0.902,
            heldout (4,000) at the end 0.895 -> 0.900; plain, corrections, lists unchanged.
        ablate: names of :data:`HEURISTICS` to switch off, for evals that measure what each
            heuristic is worth (default none: the summarizer as shipped).
    """

    def __init__(
        self,
        *,
        name: str = "extractive",
        carry_share: float = 0.5,
        new_share: float = 0.0,
        speaker_share: float = 0.5,
        max_line_chars: int = 280,
        tables: bool = True,
        verbatim_words: int = 40,
        ablate: Collection[str] = (),
    ) -> None:
        shares = (("carry_share", carry_share), ("new_share", new_share))
        for label, share in (*shares, ("speaker_share", speaker_share)):
            if not 0.0 <= share <= 1.0:
                raise ConfigurationError(f"{label} must be between 0 and 1, got {share}")
        if max_line_chars < 40:
            raise ConfigurationError(f"max_line_chars must be at least 40, got {max_line_chars}")
        unknown = sorted(set(ablate) - set(HEURISTICS))
        if unknown:
            raise ConfigurationError(
                f"unknown heuristic(s) to ablate: {', '.join(unknown)}; "
                f"known: {', '.join(HEURISTICS)}"
            )
        self.ablate = frozenset(ablate)
        self._off = self.ablate & frozenset(SCORING_HEURISTICS)
        off = self.ablate
        carry_share = 0.0 if "carry_share" in off else carry_share
        new_share = 0.0 if "new_share" in off else new_share
        speaker_share = 0.0 if "speaker_share" in off else speaker_share
        self._name = name
        self.carry_share = carry_share
        self.new_share = new_share
        self.speaker_share = speaker_share
        self.max_line_chars = max_line_chars
        self.tables = tables
        if verbatim_words < 0:
            raise ConfigurationError(f"verbatim_words must be 0 or more, got {verbatim_words}")
        self.verbatim_words = verbatim_words

    @property
    def name(self) -> str:
        """Identifies the summarizer in provenance."""
        return self._name

    def __repr__(self) -> str:
        return (
            f"ExtractiveSummarizer(name={self._name!r}, carry_share={self.carry_share}, "
            f"new_share={self.new_share})"
        )

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        """A flow with no I/O that returns the extractive summary."""
        with table_words_scope(), script_words_scope(self.ablate):  # tables read once
            return done(self._build(request))

    # -- building -------------------------------------------------------------------------

    def _build(self, request: SummaryRequest) -> SummaryOutput:
        focus = content_words(request.focus) if request.focus else frozenset()
        must = [
            make_fact(f"- {_one_line(item)}", None, 1e9, [], (0, i, 0), content_words(item))
            for i, item in enumerate(request.must_keep)
            if item.strip()
        ]
        old = self._previous_facts(request, focus)
        last_day = max(old, key=lambda f: f.order).day if old else None
        seen_tables: list[dict[str, Any]] = []
        off = self.ablate
        shapes = readers(off)
        users = _kept_users(request.kept, shapes) if self.tables else []
        after = users if "kept_rows" not in off else []
        recalling = users if "kept_memory_rows" not in off else []  # rows of earlier tables
        lend = self.tables and users and not {"table_bound_rows", "kept_bound_rows"} & off
        span_words: set[str] | None = set() if lend and "novelty" not in off else None
        remembered = _remembered_tables(previous_extra(request.previous_info))
        versions = (  # every table the span and the kept turns show, by position
            _shown_tables(request, "leading_stamp" in off, shapes)
            if self.tables and "table_newest" not in off
            else None
        )
        new = self._new_facts(
            request, focus, last_day, seen_tables, after, span_words, versions, remembered, old
        )
        if self.tables and "table_rows" not in off:
            self._refocus_tables(old, request.messages)
        if self.tables and "table_memory" not in off:
            changes: list[_Change] = []
            new.extend(
                self._named_rows(
                    remembered,
                    [*request.messages, *recalling],
                    request.previous_summary or "",
                    seen_tables,
                    changes,
                    None if versions is None else list(versions.values()),
                )
            )
            if "table_changes" not in off:
                self._note_earlier(old + new, changes)
        superseded = 0
        if "supersession" not in off:
            link_marks(old)
            superseded = supersede(old + new)
        extra_before = previous_extra(request.previous_info)
        templates = read_memory(extra_before)
        open_runs = read_open_runs(extra_before)
        if "templates" not in off:
            stock = "stock_updates" not in off
            templates = discount_templates(old + new, templates, open_runs, stock_updates=stock)
        if "repeats" not in off:
            _discount_repeats(old, new)
        if self.tables and "table_bound_rows" not in off:
            lent = (
                self._kept_lines(focus, users, span_words) if "kept_bound_rows" not in off else []
            )
            self._bind_named_rows(old + new, lent)
        if "negated" not in off:  # after the discounts: "Zofia now, not Sofia" ranks first
            negated(old + new, renames="renamed" not in off)
        if "supersession" not in off:  # an email's "now 1800", "they knocked it down to 1800"
            relayed_changes(
                old + new,
                "tool_changes" not in off,
                "spoken_changes" not in off,
                "borrowed_subject" not in off,
                "chain_ends" not in off,
                "user_changes" not in off,
            )
        budget = request.max_tokens
        selection = Selection(request.token_counter, budget)
        selection.fill(must, budget)
        old.sort(key=rank)
        new.sort(key=rank)
        free = budget - selection.used
        selection.fill(old, selection.used + int(free * self.carry_share))
        selection.fill(new, selection.used + int(free * self.new_share))
        if self.new_share:
            selection.take_one(new, budget)  # the new span's best fact, however small the share
        if "tool_novelty" not in off:  # repeated reports take at most their share, then the rest
            selection.tool_limit = int(budget * _TOOL_SHARE)
        self._balance_speakers(selection, old + new, budget)
        selection.fill(sorted(old + new, key=rank), budget)
        selection.tool_limit = None
        selection.fill(sorted(old + new, key=rank), budget)
        if "displace" not in off:
            pool = sorted(old + new, key=rank)
            selection.displace(pool, old + new, _DISPLACE_TRIES, _is_record)
        kept = selection.finish(must + old + new)
        if not kept:
            kept = self._last_resort(request, must + old + new)
        elif self.verbatim_words:
            compact = "compaction" not in off
            kept = _expand_user_messages(request, kept, self.verbatim_words, compact)
        lines, entries = selection.render(kept)
        return SummaryOutput(
            text="\n".join(lines),
            summarizer=self._name,
            extra={
                "format": FORMAT,
                "provenance": entries,
                "candidates": len(old) + len(new),
                "superseded": superseded,
                "templates": write_memory(templates),
                "open_runs": write_open_runs(open_runs),
                "tables": _next_memory(remembered, seen_tables),
                **_ends_on_result(request.messages),
                COUNTED_BY: "occasions",
            },
        )

    def _named_rows(
        self,
        remembered: list[dict[str, Any]],
        messages: Sequence[Message],
        previous: str,
        seen: Sequence[dict[str, Any]] = (),
        changes: list[_Change] | None = None,
        newer: Sequence[Table] | None = None,
    ) -> list[Fact]:
        """The rows of earlier tables the span names, each table's as one fact.

        A table evicted before anyone came back to it is remembered (``extra["tables"]``);
        when a later user message names one of its rows by a cell no other row has, the
        header and that row come back as a table record, scored as a tool result. (With
        :data:`_W_REFERRED` added as well, the held-out ``heldout`` family lost 0.05 of its
        facts at the end: a row named in passing crowded out stated facts.) A message names a
        row of the newest table shown before it that has the row: not also of an older table
        with the same columns (a client on this month's invoices and last month's), whether
        the newer one is remembered too or is in the span (``seen``, with its position). When
        the span's messages name one row alone by a key cell (:func:`.tables.key_columns`) or a
        description, that row comes back alone: another message's word that is some other
        row's alone in a column that repeats ("thermostatic head" in a parcel's contents) is no
        reference. A table evicted more than one reduction ago brings back only such a row,
        named by a rare key cell or a description (see :data:`_MEMORY_ROUNDS`); when two or
        three messages each name a different row so, those rows come back together.

        ``newer``: the tables the span and the kept turns show (``None``: not read). A row a
        later fetch of the same table shows changed (:func:`.tables.updated_rows`: a newer
        remembered table, or one of ``newer``) does not come back, whenever the message naming
        it was said (one of the last :data:`.tables.MAX_REMEMBERED` with the same columns): that
        version is stale, and the newest is in the view or in its own record
        (``ablate=["table_newest"]``; own ``ledger-updates`` family, a list fetched again with
        a named row's cell changed).
        """
        at = [pos for pos, m in enumerate(messages) if m.role == "user" and not m.is_summary]
        said = _said_words(messages)
        out: list[Fact] = []
        # (message, header) a newer table's: that table and the rows the message names of it
        claimed: dict[tuple[int, tuple[str, ...]], tuple[Table, set[int]]] = {}
        claimed_nouns: dict[tuple[int, tuple[str, ...]], frozenset[str]] = {}
        for item in seen:  # a table of the span, shown before the message, is the newest
            table = recall_table(item.get("table"))
            if table is not None:
                nouns = row_nouns(str(item.get("head", "")))
                for m, hit in enumerate(named_by(table, said, nouns=nouns)):
                    if hit and at[m] > item["pos"]:
                        claimed[(m, tuple(table[0]))] = (table, hit)
                        claimed_nouns[(m, tuple(table[0]))] = nouns
        for k in reversed(range(len(remembered))):  # the newest table first
            item = remembered[k]
            table = recall_table(item.get("table"))
            if table is None or len(table[1]) < min_rows(readers(self.ablate), table_size(table)):
                continue
            header = tuple(table[0])
            nouns = row_nouns(item["head"])
            hits = named_by(table, said, nouns=nouns)
            named = [hit if (m, header) not in claimed else set() for m, hit in enumerate(hits)]
            if changes is not None:
                asks = "table_noun_columns" not in self.ablate  # a row noun asks no column
                for m, hit in enumerate(hits):
                    if (m, header) in claimed:
                        kinds = nouns | claimed_nouns[(m, header)] if asks else frozenset()
                        changes.extend(_changes(claimed[(m, header)], (table, hit), said[m], kinds))
            old_table = int(item.get("rounds", 0)) >= 1
            keyed = [
                hit if (m, header) not in claimed and len(hit) == 1 else set()
                for m, hit in enumerate(
                    named_by(table, said, keys=True, rare=old_table, nouns=nouns)
                )
            ]
            claimed.update(((m, header), (table, hit)) for m, hit in enumerate(named) if hit)
            claimed_nouns.update(((m, header), nouns) for m, hit in enumerate(named) if hit)
            alone: set[int] = set().union(*keyed)  # named alone by its key, by any message
            if len(alone) == 1 or (old_table and 1 < len(alone) <= MAX_CITED):
                cited = alone  # an old table: each row a message names alone, up to 3
            elif old_table:
                continue
            else:
                cited = set().union(*named)
            by_key = cited == alone
            if newer is not None:  # a row fetched again since, changed: the old one is stale
                later = [recall_table(r.get("table")) for r in remembered[k + 1 :]]
                same = [t for t in (*later, *newer) if t is not None and t[0] == table[0]]
                stale = {i for t in same[-MAX_REMEMBERED:] for i, _j in updated_rows(table, t)}
                cited, dropped = cited - stale, bool(cited & stale)
            else:
                dropped = False
            if not cited or len(cited) > MAX_CITED:
                continue
            record = compact_table(
                table,
                _MAX_RECORD,
                [said[m] for m, r in enumerate(named) if r],
                sorted(cited) if by_key or dropped else (),
                nouns,
            )
            rows = record.partition("] ")[2].rpartition(" (+")[0] or record.partition("] ")[2]
            if all(row in previous for row in rows.split("; ")):
                continue  # the summary holds those rows already
            body = f"{item['head']} -> {record}"
            score = _TOOL_BASE + min(_tool_score(body, self._off), _TOOL_CAP)
            each = len(cited) == 1 or (old_table and by_key)  # each row named alone
            if each and "table_recall" not in self.ablate:
                score += _W_REFERRED if old_table else _W_RECALLED  # the user came back to it
            line = f"- tool: {_one_line(body)}"
            ids = [i for i in item.get("ids", ()) if isinstance(i, str)]
            day = item.get("day") if isinstance(item.get("day"), str) else None
            fact = make_fact(
                line, day, self._density(score, line), ids, (1, 10**6 + k, 0), _words(line)
            )
            out.append(fact)
        return out[::-1]

    def _note_earlier(self, facts: Sequence[Fact], changes: Sequence[_Change]) -> None:
        """A row a newer list repeats carries the older list's changed cells: ``new (was old)``.

        Where a candidate line holds the newer row (a record of the span's table, a row
        brought back, a carried record), the row is rewritten with the earlier value beside
        each changed cell (:func:`_changes`). The line keeps its score (scored at its new
        length, ``tables`` lost 0.046 after 10 reductions at 4,000, 5 seeds). A row is noted
        once; nothing is noted where no line holds the newer row.
        """
        done: set[str] = set()
        for change in changes:
            row = " | ".join(shown(c) for c in change.row)  # as the record shows it
            if row in done:
                continue
            done.add(row)  # found or not, once: many messages may name the same row
            noted = " | ".join(
                f"{shown(cell)} (was {_earlier_cell(shown(change.earlier[c]))})"
                if c in change.cells
                else shown(cell)
                for c, cell in enumerate(change.row)
            )
            for fact in facts:
                label, _, body = fact.line.partition(": ")
                if label != "- tool" or " -> [" not in body:
                    continue
                line = _with_row(fact.line, row, noted)
                if line is None:
                    continue
                fact.line = line
                fact.words, fact.digits = _words(line), digit_words(_words(line))
                fact.cost, fact.probes = None, None

    def _bind_named_rows(self, facts: Sequence[Fact], kept: Sequence[Fact] = ()) -> None:
        """A table record's row a user's line names ranks with that line, cut to what it names.

        The user's line and the record are two candidates: "We'll need the pipe clip for the
        Marsh Lane job." (short, dense) outlasted the record holding the pipe clip's bin and
        date, which lost in selection to lines nobody came back to, so the summary kept the
        reference and not what it refers to. Where a user's line among the candidates (the
        previous summary's or the span's) names one row of a record alone, by a key cell that
        is a name or a code (``names`` of :func:`.tables.named_by`) or by description, the
        record keeps just the rows so named (at most :data:`~.tables.MAX_CITED`, how many were
        left out said) and ranks at least as high as the best line naming it. Only the newest
        record of its columns before the line (in conversation order) is the one it names, as a
        message names a row of the newest table shown before it: a list fetched again later
        repeats the row's name, and every repeat bound to the line crowded out the rest. Its
        own score is what provenance records: the rank is borrowed for this round, and again
        next round only while the user's line is still a candidate. The cut is not undone:
        the rows left out are gone from the summary (their count said) even where there was
        room for them, and even if the user's line is not kept, as a carried record the span
        refers to is cut (:meth:`_refocus_tables`). Each record is read once
        for all the lines after it, and only for a line that says one of its cells' words or
        may describe a row (:func:`.described.may_describe`): read once a pair, a span or
        summary of 2,000 lines took 215 s, not 2 s with the rule off.

        ``kept``: the user's lines of the turns the view keeps (:meth:`_kept_lines`), after
        every candidate in order; they lend their rank as the span's would, and are never
        candidates themselves (``ablate=["kept_bound_rows"]``). They do not cut the record:
        a cut is final, and a kept turn binds round after round while it is in the view, so
        it cut away rows the record held for other reasons (``tables``, 5 seeds, 4,000: a
        stock list's first row, asked about later, cut for the row a kept turn named; 0.907
        -> 0.837 after 10 reductions with the cut).
        """
        users = [
            (f, said_words(f.line.partition(": ")[2]))
            for f in (*facts, *kept)
            if f.state != 2 and f.line.startswith("- user: ")
        ]
        if not users:
            return
        records: list[tuple[Fact, str, str, Table, frozenset[str]]] = []
        for fact in facts:
            label, _, body = fact.line.partition(": ")
            head, sep, record = body.partition(" -> ")
            if label != "- tool" or not sep or not record.startswith("[") or fact.state == 2:
                continue
            table = parse_record(record)
            if table is not None:
                records.append((fact, head, record, table, row_nouns(head)))
        # each user line: of each header, the newest record before it naming one row alone;
        # each record read once for all the lines after it (not users x records reads)
        newests: list[dict[tuple[str, ...], tuple[int, set[int]]]] = [{} for _ in users]
        describes = [may_describe(said) for _user, said in users]  # whatever the row nouns
        follows = [frozenset(w.partition(BEFORE)[2] for w in said) for _user, said in users]
        asks = _asking(users, "asked_rank" not in self.ablate)
        for r, (fact, _head, _record, table, nouns) in enumerate(records):
            cells = {w for row in table[1] for c in row for w in tokenize(fold(c))}
            later = [  # a line that says none of its words nor describes a row names none
                u
                for u, (user, said) in enumerate(users)
                if (fact.order < user.order or asks[u](fact.order))
                and (describes[u] or not cells.isdisjoint(said) or not follows[u].isdisjoint(nouns))
            ]
            if not later:
                continue
            said = [users[u][1] for u in later]
            hits = named_by(table, said, keys=True, nouns=nouns, names=True, apart=True)
            key = tuple(table[0])
            for u, hit in zip(later, hits, strict=True):
                newest = newests[u]
                if len(hit) != 1:
                    continue
                at = users[u][0].order
                was = records[newest[key][0]][0].order if key in newest else None
                if fact.order > at:  # the result a request asks for: the newest in reach,
                    if was is None or at < was < fact.order:  # where none before it has the row
                        newest[key] = (r, hit)
                elif was is None or was < fact.order or was > at:
                    newest[key] = (r, hit)
        latest: dict[tuple[str, ...], int] = {}  # each header's newest record
        for r, (fact, _head, _record, table, _nouns) in enumerate(records):
            key = tuple(table[0])
            if key not in latest or records[latest[key]][0].order < fact.order:
                latest[key] = r
        bound: dict[int, tuple[set[int], float]] = {}
        for (user, words), newest in zip(users, newests, strict=True):
            kept_turn = user.order[0] == _KEPT  # a kept turn's: the rank, never the cut
            asked = [r for r in newest.values() if records[r[0]][0].order > user.order]
            if asked:
                _answers(newest, asked, records, latest, user, words)
            for r, hit in newest.values():
                rows, best = bound.get(r, (set(), 0.0))
                lent = kept_turn or records[r][0].order > user.order  # a request's: the rank
                bound[r] = (rows if lent else rows | hit, max(best, user.priority))
        for r, (rows, best) in bound.items():
            fact, head, record, table, _nouns = records[r]
            if len(rows) > MAX_CITED:
                continue
            if rows and len(rows) < len(table[1]):
                more = sum(int(n) for n in _MORE_ROWS_RE.findall(record))
                left = more + len(table[1]) - len(rows)
                shown = "; ".join(" | ".join(table[1][i]) for i in sorted(rows))
                cut = f"{head} -> [{' | '.join(table[0])}] {shown} (+{left} rows)"
                fact.line = f"- tool: {cut}"
                fact.words, fact.digits = _words(fact.line), digit_words(_words(fact.line))
                fact.cost, fact.probes = None, None
                score = _TOOL_BASE + min(_tool_score(cut, self._off), _TOOL_CAP)
                fact.priority = max(fact.priority, self._density(score, fact.line))
            if best > fact.priority:
                if fact.recorded is None:
                    fact.recorded = fact.priority
                fact.priority = best

    def _kept_lines(
        self, focus: frozenset[str], kept: Sequence[Message], vocab: set[str] | None
    ) -> list[Fact]:
        """The user's sentences in the kept turns, scored as the span's would be; never kept.

        Each sentence of ``kept`` (the user's messages the view keeps, no named speaker's)
        is scored as :meth:`_new_facts` scores a user's sentence (the clause score, and the
        share of words new to the previous summary, the span and the kept lines before it,
        per length), so a row it names ranks with it in :meth:`_bind_named_rows` as if it
        were said in the span. They are evidence only: the sentences stay verbatim in the
        view, and the summary gets them when they are evicted.

        ``vocab``: the words known before the span and every span message's words, as
        :meth:`_new_facts` tokenized them (None when ``novelty`` is ablated); extended here
        with the kept lines' words.
        """
        if not kept:
            return []
        off = self._off
        out: list[Fact] = []
        for pos, message in enumerate(kept):
            text = content_text(message)
            if "leading_stamp" not in self.ablate:
                text = leading_stamp(text)[1]
            sentences = [
                raw if "compaction" in self.ablate else compact_sentence(raw, frozenset())
                for raw in split_sentences(text, self.max_line_chars)
            ]
            novel = [_novel_words(s, vocab) for s in sentences]
            if vocab is not None:
                vocab.update(tokenize(text))
            for sub, sentence in enumerate(sentences):
                score = score_sentence(sentence, "user", focus, off=off)
                if "clauses" not in self.ablate:
                    score = _clause_score(sentence, score, "user", focus, frozenset(), off)
                if score <= 0:
                    continue
                if vocab is not None:
                    score += _W_NOVEL * _novel_share([sub], novel)
                line = f"- user: {sentence}"
                order = (_KEPT, pos, sub)
                score = self._density(score, line)
                out.append(make_fact(line, None, score, [], order, frozenset()))
        return out

    def _refocus_tables(self, old: list[Fact], messages: Sequence[Message]) -> None:
        """A carried table record whose rows the span refers to keeps just those rows.

        The header and the rows the conversation came back to are what it needs of the table;
        the shorter line is denser, so it lasts (adding :data:`_W_REFERRED` too changed the
        ``tables`` and ``ledgers`` families by a fact or two either way).
        """
        said = _said_words(messages)
        for fact in old:
            label, _, body = fact.line.partition(": ")
            if label != "- tool" or " -> [" not in body:
                continue
            cut = table_referred(body, said)
            if cut is None:
                continue
            fact.line = f"- tool: {cut}"
            fact.words, fact.digits = _words(fact.line), digit_words(_words(fact.line))
            fact.cost, fact.probes = None, None
            score = _TOOL_BASE + min(_tool_score(cut, self._off), _TOOL_CAP)
            fact.priority = max(fact.priority, self._density(score, fact.line))

    def _balance_speakers(self, selection: Selection, facts: list[Fact], budget: int) -> None:
        """Each speaker's best facts first claim an equal part of ``speaker_share`` of the room.

        No speaker is weighed above another; instead, the more talkative side (an assistant
        explaining at length, or one person of two telling more stories) cannot crowd the
        other out: with two speakers, each may first take a quarter of what is left.
        """
        if not self.speaker_share:
            return
        pools: dict[str, list[Fact]] = {}
        for fact in sorted(facts, key=rank):  # tool results are a voice of their own here
            pools.setdefault(fact.line[2:].partition(": ")[0], []).append(fact)
        if len(pools) < 2:
            return
        room = int((budget - selection.used) * self.speaker_share / len(pools))
        for pool in pools.values():
            selection.fill(pool, selection.used + room)

    def _units(
        self, sentences: list[str], scores: list[float], said: Mapping[str, int]
    ) -> list[list[int]]:
        """The candidates of one message (see :mod:`.context`); one per sentence when off.

        ``said`` counts each sentence's occurrences (:func:`_said_counts`).
        """
        if "context" in self.ablate:
            return [[i] for i, score in enumerate(scores) if score > 0]
        repeated = [said.get(_sentence_key(s), 0) > 1 for s in sentences]
        groups: list[list[int]] = []
        for group in units(sentences, scores, repeated):
            if len(group) > 1 and sum(len(sentences[i]) + 1 for i in group) > self.max_line_chars:
                groups.extend([i] for i in group if scores[i] > 0)  # too long to keep whole
            else:
                groups.append(group)
        return groups

    def _in_reply(
        self,
        sentence: str,
        speaker: str,
        before: tuple[str, str, list[str]] | None,
        said: Mapping[str, int],
        late: bool = False,
    ) -> tuple[str, str] | None:
        """A short opening sentence joined to what it points at in the message before.

        When it leans on it (:func:`.context.leans_on_previous`): ``(line body, that
        message's id)``, else None.

        "I love this series." after Jolene's "Have you read the Expanse books?" becomes
        ``I love this series, in reply to Jolene: Have you read the Expanse books?``. Not
        when that message is the same speaker's (it continues itself), the line would pass
        ``max_line_chars``, or its framing ("in reply to", the two speakers) would be as many
        words as the two sentences say: "Scratch that, Priya" after "Noted." stays alone.

        ``late``: for a short sentence that points at something it never names, the pointer
        anywhere ("I'm going to try making it tonight!" after the recipe), joined only to a
        sentence with no number or code: quoting another message's values had the line carry
        them when they went stale (held-out stale-only +0.06, docs-notes/fidelity-round5.md).
        """
        if before is None or before[0] == speaker:
            return None
        if not late and not leans_on_previous(sentence):
            return None
        other, other_id, sentences = before
        repeated = [said.get(_sentence_key(s), 0) > 1 for s in sentences]
        at = antecedent(sentences, sentence, repeated)
        if at is None or (late and any(c.isdigit() for c in sentences[at])):
            return None
        body = _in_reply_to(sentence, f"in reply to {other}", sentences[at])
        if len(body) + len(speaker) + 4 > self.max_line_chars:
            return None
        frame = {"in", "reply", "to", *_counted(speaker), *_counted(other)}
        said_here = _counted(f"{sentence} {sentences[at]}") - frame
        if len(said_here) <= len(frame):  # "Scratch that, Priya, in reply to assistant: Noted."
            return None  # the framing would say more than the two messages do
        return body, other_id

    def _said_counts(self, request: SummaryRequest, speakers: frozenset[str]) -> dict[str, int]:
        """How often each sentence is said in the span's messages and the previous summary."""
        counts: dict[str, int] = {}
        texts = [content_text(m) for m in request.messages if m.role != "tool"]
        previous = request.previous_summary or ""  # each line's body, its label shared or not
        shared = _shares_labels(request.previous_info)
        lines = summary_lines(previous, self.max_line_chars, shared_labels=shared)
        texts.extend(body for _i, _day, _line, body in lines)
        for text in texts:
            for raw in split_sentences(text, self.max_line_chars):
                sentence = raw if "compaction" in self.ablate else compact_sentence(raw, speakers)
                key = _sentence_key(sentence)
                counts[key] = counts.get(key, 0) + 1
        return counts

    def _vocabulary(self, request: SummaryRequest) -> set[str] | None:
        """The words known before the span: the previous summary's and its templates' frames.

        None when ``novelty`` is ablated.
        """
        if "novelty" in self.ablate:
            return None
        vocab = set(tokenize(request.previous_summary or ""))
        for template in read_memory(previous_extra(request.previous_info)):
            vocab.update(template.frame)
        return vocab

    def _density(self, score: float, line: str) -> float:
        return score if "length_density" in self.ablate else length_density(score, line)

    def _last_resort(self, request: SummaryRequest, facts: list[Fact]) -> list[Fact]:
        """Nothing fit whole: clip the best fact (undated), or note the span held no facts."""
        ranked = sorted((f for f in facts if f.state != 2), key=rank)  # not superseded
        if ranked:
            best = ranked[0]
        else:
            n = len(request.messages)
            best = make_fact(
                f"- {n} message{'s' if n != 1 else ''} with no lasting facts "
                "(greetings, thanks, small talk).",
                None,
                0.0,
                [m.id for m in request.messages],
                (2, 0, 0),
                frozenset(),
            )
        line = clip_to_tokens(best.line, request.max_tokens, request.token_counter)
        if not line.strip("- \u2026"):
            return []
        best.line, best.day = line, None
        return [best]

    def _previous_facts(self, request: SummaryRequest, focus: frozenset[str]) -> list[Fact]:
        text = request.previous_summary
        if not text or not text.strip():
            return []
        origin = _previous_provenance(request.previous_info)
        counted = "template_counts" not in self.ablate
        counts = _counts(request.previous_info) if counted else {}
        leanings = _leanings(request.previous_info)
        facts: list[Fact] = []
        lines = summary_lines(
            text, self.max_line_chars, shared_labels=_shares_labels(request.previous_info)
        )
        for sub, (index, day, line, body) in enumerate(lines):
            ids, stored, marks, core, more, own, absorbed = origin.get(
                index, ([], None, [], None, 0, 1, [])
            )
            whole = None
            if core is not None:  # expanded last round: select on the core again
                label, _, whole = line.partition(": ")
                line, body = f"{label}: {core}", core
            if stored is None:
                score = score_sentence(body, "summary", focus, off=self._off)
                if score <= 0:
                    continue
                stored = self._density(score, line)
            fact = make_fact(line, day, stored, list(ids), (1, index, sub), _words(line))
            fact.marks = list(marks)
            fact.more, fact.own = more, own
            fact.whole = whole
            fact.seen, fact.said = counts.get(index, (0, 0))
            fact.leans = leanings.get(index, [])
            facts.append(fact)
            label = line.partition(": ")[0]
            for text, score in absorbed:  # kept apart before the expansion: apart again
                part = make_fact(
                    f"{label}: {text}",
                    day,
                    score,
                    list(ids),
                    (1, index, sub),
                    _words(f"{label}: {text}"),
                )
                part.more, part.own = more, own
                facts.append(part)
        return _link_leaning(facts)

    def _new_facts(
        self,
        request: SummaryRequest,
        focus: frozenset[str],
        day: str | None,
        seen_tables: list[dict[str, Any]],
        after: Sequence[Message] = (),
        span_words: set[str] | None = None,
        versions: Mapping[int, Table] | None = None,
        remembered: Sequence[dict[str, Any]] = (),
        carried: Sequence[Fact] = (),
    ) -> list[Fact]:
        """The span's candidate facts; the tables its tool results hold go to ``seen_tables``.

        ``span_words``, if given, gets the words known before the span and every message's
        words, stamp and all (:meth:`_kept_lines` scores the kept turns' novelty on them).

        ``after``: the user's messages the view keeps after the reduction (``request.kept``).
        Where no later message of the span names a row of a table of the span, they are read
        as if they came after the span's messages (the rows shown, the bonus of a table
        someone came back to), and for nothing else: "Put a note on Sunniva's invoice" still
        in the view names a row of the list this reduction evicts, so the record shows that
        row and ranks as a table the user came back to, as it would with the message in the
        span (``ablate=["kept_rows"]``). Only there: a record holding a row the span named
        and one a kept turn names was cut to the second when that turn was evicted and named
        it (:meth:`_bind_named_rows`), and lost the first (``tables``, 5 seeds, 4,000: 0.907
        -> 0.837 after 10 reductions).

        ``versions``: the tables the span and the kept turns show, by position (kept turns
        after the span's; ``None``: not read). A row a later fetch of the same table shows
        changed (:func:`.tables.updated_rows`) is stale: a message naming it does not show it
        in this table's record. The newer fetch's record shows it instead, named by a message
        before that fetch too (after the older fetch, or a remembered one: ``remembered``):
        the user came back to the row, whose newest version it holds (``ablate=
        ["table_newest"]``; own ``ledger-updates`` family).
        """
        messages = request.messages
        names = tool_names(messages)
        speakers = frozenset(m.name.lower() for m in messages if m.name)
        pending: dict[str, tuple[str, dict[str, str], str, int, str | None]] = {}
        by_key: dict[str, Fact] = {}
        facts: list[Fact] = []
        off = self.ablate
        shapes = readers(off)
        cap = float("inf") if "tool_cap" in off else _TOOL_CAP
        asked: tuple[str, list[str], list[float]] | None = None  # the assistant's last words
        heard: tuple[str, tuple[str, list[str], list[float]]] | None = None  # a named speaker's
        prior: tuple[str, str, list[str]] | None = None  # the last message: speaker, id, words
        result = _result_before(request, carried)  # the message before, a tool result: id, line
        recent: list[tuple[str, str, list[str], list[float]]] = []  # the last few, with scores
        revisions: list[tuple[Fact, str, frozenset[str]]] = []  # bare corrections joined
        sayings = _sayings(messages)  # each message's words: a later one may name a row
        kept_said = _said_words(after)  # the kept turns': read only where the span names none
        known: set[str] = set(tokenize(request.previous_summary or ""))  # values seen so far
        reports = _reports(request.previous_summary or "")  # tool results seen, per tool
        said = self._said_counts(request, speakers)
        vocab = self._vocabulary(request)
        if span_words is not None and vocab is not None:
            span_words.update(vocab)

        def add(
            line: str, day: str | None, score: float, ids: list[str], order: Any, words: list[str]
        ) -> Fact:
            key = " ".join(words)  # the speaker's and the sentence's words: case and
            seen = by_key.get(key)  # punctuation aside, the same thing said again
            if seen is not None:  # an exact repeat: one line, both sources, a little weight
                seen.merge_ids(ids)
                seen.priority += 0.0
                return seen
            what = content_words(words=words)
            fact = make_fact(line, day, self._density(score, line), ids, order, what)
            fact.own = len(ids)
            by_key[key] = fact
            facts.append(fact)
            return fact

        for pos, message in enumerate(messages):
            text = whole = content_text(message)
            if message.role != "tool":
                whole_words = tokenize(text)
                known.update(whole_words)
                if span_words is not None:
                    span_words.update(whole_words)
            lead, rest = (None, text) if "leading_stamp" in off else leading_stamp(text)
            stamp = message_timestamp(message) or lead
            text = rest if lead else text
            if stamp:
                day = day_of(stamp)
            if message.role == "tool":
                call_id = message.tool_call_id or ""
                call = pending.pop(call_id, None)
                head = call[0] if call else names.get(call_id, "tool")
                later = pos  # a word said after this result refers back to it

                referred = [words for at, _role, words in sayings if at > later]
                named = [words for at, role, words in sayings if at > later and role == "user"]
                if "asked_rows" not in off:
                    asking = _request(sayings, pos)
                    if asking is not None:
                        referred, named = [asking, *referred], [asking, *named]
                said_after = kept_said
                shown = versions.get(pos) if versions is not None else None
                if shown is not None:
                    referred, named, said_after = _newest_rows(
                        shown,
                        pos,
                        versions or {},
                        remembered,
                        sayings,
                        referred,
                        named,
                        kept_said,
                        head,
                    )

                args = call[1] if call else {}
                body = _one_line(
                    tool_body(head, args, text, referred, tables=self.tables, shapes=shapes)
                )
                if said_after and not _used_table(body, referred):  # the span names no row
                    also = _one_line(
                        tool_body(head, args, text, said_after, tables=self.tables, shapes=shapes)
                    )
                    if _used_table(also, said_after, min_rows(shapes)):
                        body, named = also, said_after
                ids = [call[2], message.id] if call else [message.id]
                words = tokenize(body)
                score = _TOOL_BASE + min(_tool_score(body, self._off), cap)
                if self.tables and "table_rows" not in off:
                    # the span's big tables are read once already (``versions``)
                    table = shown if versions is not None else read_table(text, shapes=shapes)
                    big = table is not None and len(table[1]) >= min_rows(shapes, len(text))
                    if _used_table(body, named, min_rows(shapes)):
                        one_row = (
                            big and "table_recall" not in off and _keyed_alone(table, named, head)
                        )
                        score += _W_RECALLED if one_row else _W_REFERRED
                    kept = remember(*table) if table is not None and big else None
                    if kept is not None:
                        seen_tables.append(
                            {"head": head, "table": kept, "ids": ids, "day": day, "pos": pos}
                        )
                if vocab is not None:
                    result_words = tokenize(text)
                    vocab.update(result_words)
                    if span_words is not None:  # the whole text's, stamp and all
                        span_words.update(result_words if text == whole else tokenize(whole))
                news = (
                    1.0
                    if "tool_novelty" in off
                    else _tool_news(body, head, known, reports, "fresh_reports" not in off)
                )
                before = len(facts)
                line = f"- tool: {body}"
                added = add(line, day, score * news, ids, (2, pos, 0), ["tool", *words])
                if len(facts) > before:
                    facts[-1].capped = news < _NEWS_CAP
                result = (message.id, added)
                continue
            role = "summary" if message.is_summary else message.role
            speaker = _speaker(message.name or role)
            label, who = f"- {speaker}: ", tokenize(speaker)
            sentences = [
                raw if "compaction" in off else compact_sentence(raw, speakers)
                for raw in split_sentences(text, self.max_line_chars)
            ]
            scores = [
                score_sentence(s, role, focus, speakers=speakers, off=self._off) for s in sentences
            ]
            if role == "user" and not message.name and "clauses" not in off:
                scores = [
                    _clause_score(s, score, role, focus, speakers, self._off)
                    for s, score in zip(sentences, scores, strict=True)
                ]
            if role == "user" and not message.name and "answers" not in off:
                scores = _answered(scores, sentences, asked)
            elif heard is not None and _answers_named(message, heard[0], off):
                scores = _answered(scores, sentences, heard[1])
            novel = [_novel_words(s, vocab) for s in sentences]
            tokens = [tokenize(s) for s in sentences]
            if vocab is not None:
                vocab.update(tokenize(text))
            first = len(facts)
            if role == "user" and asked is not None and "context" not in off:
                reply = _reply_fact(asked, _one_line(text), message.id, focus, self._off)
                if reply is not None:
                    body, score, ids = reply
                    add(label + body, day, score, ids, (2, pos, 0), who + tokenize(body))
            groups = self._units(sentences, scores, said)
            bare = None if "bare_corrections" in off else _bare_reply(text, recent, speaker)
            if bare is not None:  # "Scratch that, five.": on one line with what it revises
                body, source, worth, replaced = bare
                before = len(facts)
                score = max([worth, *scores])
                add(
                    label + body,
                    day,
                    score,
                    [source, message.id],
                    (2, pos, 1),
                    who + tokenize(body),
                )
                if len(facts) > before:
                    revisions.append((facts[-1], source, replaced))
                    groups = []
            for group in groups:
                sentence = " ".join(sentences[i] for i in group)
                if "context" not in off and len(group) == 1 and says_nothing(sentence, speakers):
                    continue  # "I'm here for you no matter what!": worth less than its tokens
                ids = [message.id]
                alone = 1.0
                if "context" not in off and all(scores[i] <= 0 for i in range(group[0])):
                    core = " ".join(sentences[i] for i in group if scores[i] > 0)
                    leaned = self._in_reply(core or sentence, speaker, prior, said)
                    if leaned is not None:
                        sentence, ids = leaned[0], [leaned[1], message.id]
                    elif names_nothing_alone(core or sentence):
                        if len(group) == 1:
                            alone = _ALONE  # "I'd love to try it sometime.": little alone
                        late = self._in_reply(core or sentence, speaker, prior, said, late=True)
                        if late is not None:  # its cue on its line, ranked as before
                            sentence, ids = late[0], [late[1], message.id]
                score = max(scores[i] for i in group)
                score += _JOINED * (sum(scores[i] for i in group) - score)
                score *= alone
                if score > 0 and vocab is not None:
                    updates = any(not CORRECTION_WORDS.isdisjoint(tokens[i]) for i in group)
                    score += _W_NOVEL * (1.0 if updates else _novel_share(group, novel))
                sub = group[0] + 1
                presents = (
                    result is not None
                    and "result_context" not in off
                    and all(scores[i] <= 0 for i in range(group[0]))
                    and leans_on_result(sentence)
                )
                if presents and result is not None and result[1] is None:
                    continue  # its result went last round, and the result's line with it
                fact = add(
                    label + sentence,
                    day,
                    score,
                    ids,
                    (2, pos, sub),
                    who + tokenize(sentence),
                )
                if presents and result is not None and fact.leans_on is None:
                    fact.leans, fact.leans_on = [result[0]], result[1]  # "Here you go, 16 rows."
            if role == "user" and not message.name and "asides" not in off:
                for aside, at in _asides(sentences, scores, groups):
                    score = score_sentence(aside, role, focus, speakers=speakers, off=self._off)
                    if score <= 0 or says_nothing(aside, speakers):
                        continue
                    if vocab is not None:
                        mine = [w for w in content_words(aside) if not any(c.isdigit() for c in w)]
                        new_words = sum(w in novel[at][0] for w in mine)
                        score += _W_NOVEL * (new_words / len(mine) if mine else 0.0)
                    add(
                        label + aside,
                        day,
                        score,
                        [message.id],
                        (2, pos, at + 1),
                        who + tokenize(aside),
                    )
            result = None
            if sentences:
                prior = (speaker, message.id, sentences)
                recent = [*recent[1 - _BARE_REACH :], (speaker, message.id, sentences, scores)]
            if message.name and role in _PEOPLE and sentences:
                heard = (message.name, (message.id, sentences, scores))
            elif role in _PEOPLE:
                heard = None
            if role == "assistant" and sentences:
                asked = (message.id, sentences, scores)
            elif role == "user":
                asked = None
            if "second_sentence" not in off:
                _second_sentences(facts[first:])
            for tool_call in message.tool_calls or ():
                head, args = _call_head(tool_call)
                pending[str(tool_call.get("id"))] = (head, args, message.id, pos, day)
        for head, _args, message_id, pos, when in pending.values():  # calls with no result here
            body = f"called {head}"
            score = _TOOL_BASE + score_sentence(head, "assistant", off=self._off) / 2
            line = f"- assistant: {body}"
            add(line, when, score, [message_id], (2, pos, 999), tokenize(line))
        for joined, source, replaced in revisions:  # the revised statement needs its revision
            for fact in facts:
                if fact is not joined and source in fact.ids and replaced & value_words(fact.line):
                    mark(fact, joined)
        return facts


def _answered(
    scores: list[float],
    sentences: Sequence[str],
    asked: tuple[str, list[str], list[float]] | None,
) -> list[float]:
    """``scores`` with :data:`_W_ANSWER` added to each statement that answers the assistant.

    Only where the assistant's message just before asked the user about themselves
    (:func:`.context.asks_the_user`), and only to a sentence of the reply that scores above 0
    and does not ask in turn ("Six of us." scores nothing and stays so).
    """
    if asked is None or not any(asks_the_user(s) for s in asked[1]):
        return scores
    return [
        score + _W_ANSWER if score > 0 and not asks(sentence) else score
        for sentence, score in zip(sentences, scores, strict=True)
    ]


def _answers_named(message: Message, asker: str, off: Collection[str]) -> bool:
    """Whether ``message`` may answer what ``asker``, another named person, just asked.

    A conversation between two named people (each message's ``name`` set, on the ``user``
    and the ``assistant`` side alike: a dialogue replayed as a chat) has no assistant and no
    user, only two people, and each asks the other about themselves ("What made you pick
    pottery?", "How do you unwind?") and the reply tells a fact about its speaker with no
    cue word ("I sing in a choir."), the same kind :data:`_W_ANSWER` lifts for a chat's
    user. Here either side's reply to the other's question about them gains it, read by the
    same :func:`_answered` (``ablate=["named_answers"]``). A chat with an unnamed user is
    untouched: its assistant's answers to the user are help, not facts about the assistant.
    """
    return (
        "answers" not in off
        and "named_answers" not in off
        and bool(message.name)
        and message.role in _PEOPLE
        and message.name != asker
    )


def _bare_reply(
    text: str, recent: Sequence[tuple[str, str, list[str], list[float]]], speaker: str
) -> tuple[str, str, float, frozenset[str]] | None:
    """A correction said with nothing but its value, on one line with the statement it revises.

    "Scratch that, five." after the assistant's "Done, your dentist check-up is confirmed
    for two people." says nothing alone, and the statement alone says the stale value: the
    line is ``Scratch that, five, in reply to assistant: Done, ...two people.`` (``in reply
    to:`` a statement of the same speaker's: "Please put the haircut down for seven
    people.", "Sure, noted.", "Sorry, change it to five."). The statement is the latest of
    the last :data:`_BARE_REACH` messages' sentences holding another value of a kind the
    correction gives (:func:`.supersede.replaced_values`), looking past messages that hold
    no value ("Sure, noted.") and no further than one that holds values of other kinds.
    Returned: the line's body, the statement's message id, its score and the values replaced
    (its own line holding them is kept only beside this one, :func:`.supersede.mark`). None
    when the message is more than one sentence or no bare correction
    (:func:`.supersede.bare_correction`).
    """
    said = _one_line(text).strip()
    if not said or len(list(split_sentences(said))) != 1:
        return None
    bare = bare_correction(said)
    if bare is None:
        return None
    for who, source, sentences, scores in reversed(recent):
        for sentence, score in zip(reversed(sentences), reversed(scores), strict=True):
            replaced = replaced_values(*bare, sentence)
            if replaced:
                reply = "in reply to" if who == speaker else f"in reply to {who}"
                return _in_reply_to(said, reply, sentence), source, score, replaced
        if any(holds_value(sentence) for sentence in sentences):
            return None  # a message with values of other kinds between: not what it revises
    return None


def _asides(
    sentences: Sequence[str], scores: Sequence[float], groups: Sequence[Sequence[int]]
) -> list[tuple[str, int]]:
    """What a user message says about its speaker in passing, and no candidate line carries.

    ``(statement, index of its sentence)`` for each clause :func:`.context.aside_statements`
    reads as a statement about the speaker: in a sentence the message's units left out (a
    clause a dash split off and that scored below what it continues: "... \u2014 because I'm on
    crutches for another month \u2014 ..."; not one that scored nothing, "Sorry, I'm
    rambling."), and in a question (its line, if any, is a
    question: "..., as my son's asthma flares up in the cold, so what would ...?"). A
    statement's clauses are on its own line already and are not taken apart, and so is a
    statement with a question tagged on ("I think the code was AT-17937, can you check?"),
    which is scored as what it tells (:func:`.facts.asks`).
    """
    covered = {i for group in groups for i in group}
    found: list[tuple[str, int]] = []
    for i, sentence in enumerate(sentences):
        asked = asks(sentence)
        if (i in covered or scores[i] <= 0) and not asked:
            continue
        whole = not sentence.rstrip("\"')]").endswith("?")
        for aside in aside_statements(sentence, whole=whole):
            found.append((aside, i))
    return found


_CLAUSE_RE = re.compile(r",\s+|;\s+|\s+[-\u2013\u2014]\s+|\s*[()]\s*")
_CLAUSE_WORDS = 3
"""Fewest words a part of a sentence needs to count as a clause of its own."""


def _clause_score(
    sentence: str,
    score: float,
    role: str,
    focus: frozenset[str],
    speakers: frozenset[str],
    off: frozenset[str],
) -> float:
    """A long statement's score as the unit of its clauses, when that is higher.

    A sentence's score counts at most ten words (``per_word``), and its line is then weighed
    by its length (:func:`length_density`): a user's long sentence that says several things
    ("I'm sorting the garden before winter, the hedge is enormous, my knee's bad since the
    fall, so ...") scored like a short one that says one, and paid for its length, so a
    detail said in passing inside it lost to shorter chatter (``docs-notes/fidelity-round6.md``).
    Scored as its clauses (split at commas, semicolons, dashes and brackets), combined as a
    unit of sentences is (:data:`_JOINED`), it earns what each clause says. Never lower than
    the sentence's own score; a question (ending in "?") keeps its own. Only for the user
    of an assistant: in a dialogue between named people (a user message with a ``name``),
    raising one side's long sentences took room from the other's (LoCoMo 8,000/4,000 after
    merging main, the other side's answers in view 0.325 -> 0.322).
    """
    if score <= 0 or sentence.endswith("?"):
        return score
    parts = [p for p in _CLAUSE_RE.split(sentence) if len(p.split()) >= _CLAUSE_WORDS]
    if len(parts) < 2:
        return score
    each = sorted(
        (score_sentence(p, role, focus, speakers=speakers, off=off) for p in parts), reverse=True
    )
    return max(score, each[0] + _JOINED * sum(each[1:]))


_ROLES = frozenset(("user", "assistant"))
"""The labels of a chat's unnamed speakers (a named one is labelled by name)."""


def _discount_repeats(old: Sequence[Fact], new: Sequence[Fact]) -> None:
    """Discount a sentence said in many messages as a template is (see :mod:`.templates`).

    A carried line records every message it was said in (repeats merge into it: ``ids``
    and ``more``). A stock phrase an assistant says in every other reply ("Keep a short note
    of what you changed so it's easy to undo.", said in 40 messages) is a template with no
    value changed, but the template memory keeps the 32 frames seen most recently, and a
    phrasebook of more than that thrashed it: the phrase was never discounted and kept its
    line round after round, each new repeat merging into it, while details said once were
    evicted. So a line said in ``n >= 3`` messages has its priority divided by
    ``(n - 1) ** POWER`` as a template's is, and so has the span's repeat of it (the same
    words), which would otherwise take its place. Lines made of two messages (a reply and
    what it answers), tool results and lines with a number or code are not counted (an
    option offered again, a date confirmed twice: the same value said again is data, not
    boilerplate; counted, the own ``confirmations`` family lost 0.05 of its facts at the end,
    4,000/3,000/1,000, 5 seeds), and nor are lines that name someone or something
    (:func:`.facts.names_a_name`: "Our new cleaner is Hester Blackwood.", said again on
    purpose so it is not forgotten, is a fact restated, while a stock phrase names no one);
    a fact the template discount already discounted is left as it is. The count is recorded
    on the line (``"said"``, as a template's occasions are as ``"seen"``): a repeat of the
    span not merged into the carried line still counts in the rounds after (without it, "A
    quick search of your own notes might turn up what worked before." was discounted in one
    round and kept at its full score in the next, own ``passing-details`` family). Only the
    unnamed user
    and assistant of a chat: in a dialogue between named people (LoCoMo) it cost 8,000/2,000
    an answer in view (0.309 -> 0.308).
    """
    said: dict[tuple[str, frozenset[str]], int] = {}
    for fact in old:
        speaker, _, body = fact.line[2:].partition(": ")
        if fact.own == 1 and speaker in _ROLES and not fact.digits and not names_a_name(body):
            key = (speaker, fact.words)
            said[key] = max(said.get(key, 0), len(fact.ids) + fact.more, fact.said)
    for fact in new:
        key = (fact.line[2:].partition(": ")[0], fact.words)
        if key in said:
            said[key] += len(fact.ids)
    for fact in (*old, *new):
        n = said.get((fact.line[2:].partition(": ")[0], fact.words), 0)
        if n > 1 and fact.own == 1:
            fact.said = max(fact.said, n)  # on its line: a repeat not merged in still counts
        if n >= MIN_INSTANCES and fact.recorded is None and fact.own == 1:
            fact.recorded = fact.priority  # the next round discounts afresh, not again
            fact.priority /= (n - 1) ** POWER


def _counted(text: str) -> set[str]:
    """A text's distinct words (:func:`tokenize`) of two letters or more, or numbers."""
    return {w for w in tokenize(text) if len(w) > 1 or w.isdigit()}


def _in_reply_to(said: str, reply: str, quote: str) -> str:
    """``said`` and what it answers on one line: "yes, in reply to: ...", "Is it? in reply ..."."""
    said = said.rstrip(" .!")
    return f"{said}{' ' if said.endswith('?') else ', '}{reply}: {quote}"


def _expand_user_messages(
    request: SummaryRequest, kept: list[Fact], max_words: int, compact: bool = True
) -> list[Fact]:
    """Spend the room left after selection on whole short user messages.

    Each kept fact from a single user message of the span (at most ``max_words`` words,
    its leading timestamp aside) becomes that whole message, best facts first, while the
    summary still fits ``request.max_tokens``; the message's other kept facts go, being in
    it. An expansion step, not a selection rule: it never evicts a fact (keeping whole user
    messages as candidates cost 0.10 to 0.19 of the planted facts, see :mod:`.context`).

    The line records the fact it was made from (``core``) and the other kept facts it took
    in (``absorbed``, each with its score): the next round selects on each of them again, as
    if nothing had been expanded. With the core alone, the absorbed facts were gone after one
    round ("Last word on the hall, promise: Sage Mist." absorbed by "My partner won, as
    usual.", the colour lost; 20 seeds at 4,000/3,000/1,000, held-out ``blind5-asides``
    after 10 reductions / at the end 0.590 / 0.550 -> 0.897 / 0.695; see
    ``docs-notes/fidelity-round5.md``, session 13). Recording them joined to the core as
    one line cost the own families ``lists`` and ``ledgers`` (a longer line, carried at the
    best fact's score).
    """
    whole: dict[str, str] = {}
    speakers = frozenset(m.name.lower() for m in request.messages if m.name)
    for message in request.messages:
        if message.role == "user" and not message.is_summary:
            said = _one_line(leading_stamp(content_text(message))[1])
            if said and len(said.split()) <= max_words:
                whole[message.id] = _trimmed(said, speakers, compact)
    count = request.token_counter.count_text
    kept = list(kept)
    for fact in sorted(kept, key=rank):
        text = fact.whole
        if text is None and fact.order[0] == 2 and len(fact.ids) == 1:
            text = whole.get(fact.ids[0])
        label, _, body = fact.line.partition(": ")
        if text is None or fact not in kept or body == text or not label.startswith("- "):
            continue
        trial = [f for f in kept if f is fact or f.ids != fact.ids]
        line = fact.line
        fact.line = f"{label}: {text}"
        if count("\n".join(Selection.render(trial)[0])) <= request.max_tokens:
            fact.absorbed = [
                (
                    f.core or f.line.partition(": ")[2],
                    f.priority if f.recorded is None else f.recorded,
                )
                for f in kept
                if f is not fact and f.ids == fact.ids
            ]
            kept = trial
            fact.core = body
        else:
            fact.line = line
    return kept


def _trimmed(text: str, speakers: frozenset[str], compact: bool) -> str:
    """A whole message without its pleasantries.

    Interjections and forms of address are stripped from each sentence (unless ``compact``
    is false), sentences saying nothing (greetings, thanks) are left out at its edges.
    """
    sentences = list(split_sentences(text))
    if compact:
        sentences = [compact_sentence(s, speakers) for s in sentences]
    said = [i for i, s in enumerate(sentences) if score_sentence(s, "user", speakers=speakers) > 0]
    if not said:
        return text
    return " ".join(s for s in sentences[said[0] : said[-1] + 1] if s)


def _novel_share(group: Sequence[int], novel: Sequence[tuple[frozenset[str], int]]) -> float:
    """The share of a unit's content words (numbers and codes aside) never seen before."""
    new = set().union(*(novel[i][0] for i in group))
    total = sum(novel[i][1] for i in group)
    return min(1.0, len(new) / total) if total else 0.0


def _novel_words(sentence: str, vocab: set[str] | None) -> tuple[frozenset[str], int]:
    """The content words of ``sentence`` not in ``vocab``, and how many it has (digits aside)."""
    if vocab is None:
        return frozenset(), 0
    words = [w for w in content_words(sentence) if not any(c.isdigit() for c in w)]
    return frozenset(w for w in words if w not in vocab), len(words)


def _sentence_key(sentence: str) -> str:
    """A sentence as compared for repeats: its words, case and punctuation aside."""
    return " ".join(tokenize(sentence))


def _reports(summary: str) -> dict[str, int]:
    """Tool results a previous summary holds, per tool name."""
    out: dict[str, int] = {}
    for line in summary.splitlines():
        if line.startswith("- tool: "):
            name = line[8:].partition("(")[0]
            out[name] = out.get(name, 0) + 1
    return out


def _tool_news(
    body: str, head: str, known: set[str], reports: dict[str, int], fresh: bool = True
) -> float:
    """What a tool result keeps of its score for the new information it brings (0 to 1).

    Its values (words with a digit, and names) never seen before in the summary or the
    span count for half; the other half goes down as the same tool reports again: its
    ``n``-th result (counting the previous summary's) keeps ``1 / sqrt(n - 1)`` from the
    third on. Updates ``known`` and ``reports``. A new value beats the tenth status report.

    With ``fresh``, the repeat discount is waived when at least :data:`_FRESH` of the result's
    names and codes (capitalised words, words of letters and digits) were never seen before
    (:func:`_fresh_share`), and in proportion to that share below it: a list showing rows of
    other people, parcels or invoices is new information however often its tool ran, while a
    status report (numbers under the same names: ``used_pct=57``, then ``59``) is the same
    report again (``ablate=["fresh_reports"]``).
    """
    result = body.partition(" -> ")[2]
    words = tokenize(result)
    names = {w.lower() for w in _CAPITALISED_RE.findall(result)}
    values = {w for w in words if any(c.isdigit() for c in w)} | names
    new = len(values - known) / len(values) if values else 1.0
    share = _fresh_share(words, names, known) if fresh else 0.0
    known.update(tokenize(body))
    name = head.partition("(")[0]
    n = reports.get(name, 0) + 1
    reports[name] = n
    repeat = 1.0 if n < _REPORTS else (n - 1) ** -0.5
    repeat += (1.0 - repeat) * (1.0 if share >= _FRESH else share)
    return (1.0 + new) / 2 * repeat


def _fresh_share(words: Sequence[str], names: AbstractSet[str], known: AbstractSet[str]) -> float:
    """The share of a result's names and codes not in ``known`` (0 when it has none).

    ``words``: the result's words; ``names``: its capitalised words, lower-cased. A code is a
    word of letters and digits (``HP-1640-P``, ``V88``). Numbers, dates and amounts are not
    counted: a status report's change every time.
    """
    ids = {w for w in words if _letters_and_digits(w)} | names
    return len(ids - known) / len(ids) if ids else 0.0


def _letters_and_digits(word: str) -> bool:
    return any(c.isdigit() for c in word) and any(c.isalpha() for c in word)


def _is_record(fact: Fact) -> bool:
    """Whether ``fact`` is a table record (a tool result written as header and rows).

    The one long kind of line a summary keeps: at 45-60 tokens even cut to one row, it misses
    the last gap of a share that short lines fill. :data:`HEURISTICS` ``displace`` is for it
    alone: for every line, it cost the ``prose-answers`` family 3 facts of 31 after 10
    reductions (5 seeds, 4,000/3,000/1,000; ``docs-notes/fidelity-round18-tables28.md``).
    """
    label, _, body = fact.line.partition(": ")
    return label == "- tool" and parse_record(body.partition(" -> ")[2]) is not None


def _kept_users(kept: Sequence[Message], shapes: bool | AbstractSet[str] = True) -> list[Message]:
    """The user's own messages among the kept turns, up to the first table a tool shows there.

    No named speaker's, no summary. A message after a newer table refers to that one, as a
    message names a row of the newest table shown before it: "Bramble" said after a fresh
    invoice list kept an older list's Bramble row, which crowded out what the summary held
    (``tables``, 5 seeds, 4,000: 0.907 -> 0.837 after 10 reductions with every kept turn).
    """
    out: list[Message] = []
    for m in kept:
        if m.role == "tool":
            text = content_text(m)
            table = read_table(text, shapes=shapes)
            if table is not None and len(table[1]) >= min_rows(shapes, len(text)):
                break
        elif m.role == "user" and not m.is_summary and not m.name:
            out.append(m)
    return out


def _shown_tables(
    request: SummaryRequest, no_stamp: bool = False, shapes: bool | AbstractSet[str] = True
) -> dict[int, Table]:
    """The tables of at least :func:`.tool_facts.min_rows` rows the span and the kept turns show.

    By position: the span's messages, then the kept turns (``request.kept``) after them. Read
    as :meth:`ExtractiveSummarizer._new_facts` reads a tool result (a leading stamp aside
    unless ``no_stamp``). Only compared with other tables: no word of a kept turn is written.
    """
    out: dict[int, Table] = {}
    for pos, message in enumerate([*request.messages, *request.kept]):
        if message.role != "tool":
            continue
        text = content_text(message)
        if not no_stamp:
            lead, rest = leading_stamp(text)
            text = rest if lead else text
        table = read_table(text, shapes=shapes)
        if table is not None and len(table[1]) >= min_rows(shapes, len(text)):
            out[pos] = table
    return out


def _newest_rows(
    table: Table,
    pos: int,
    versions: Mapping[int, Table],
    remembered: Sequence[dict[str, Any]],
    sayings: Sequence[tuple[int, str, frozenset[str]]],
    referred: list[frozenset[str]],
    named: list[frozenset[str]],
    kept_said: list[frozenset[str]],
    head: str,
) -> tuple[list[frozenset[str]], list[frozenset[str]], list[frozenset[str]]]:
    """The words naming rows of the span's ``table`` at ``pos``: its rows' newest versions.

    A message naming only rows a later fetch of the same table shows changed (one of the
    last :data:`.tables.MAX_REMEMBERED` of ``versions`` after ``pos``, with the same columns:
    :func:`.tables.updated_rows`) does not name them here:
    ``referred``, ``named`` and ``kept_said`` without it. A message of the span since the
    fetch before this one (of the span, else the newest remembered) naming only rows this
    fetch changed names them here: it is put with ``referred`` (and with ``named`` when it is
    the user's). At most that many comparisons per table and each message read once more at
    most: the pass stays linear in the span.
    """
    nouns = row_nouns(head)
    header = table[0]
    later = [q for q, other in versions.items() if q > pos and other[0] == header]
    stale = {i for q in later[-MAX_REMEMBERED:] for i, _j in updated_rows(table, versions[q])}
    if stale:  # a later fetch has them changed

        def current(said: list[frozenset[str]]) -> list[frozenset[str]]:
            hits = named_by(table, said, nouns=nouns, apart=True)
            return [w for w, hit in zip(said, hits, strict=True) if not (hit and hit <= stale)]

        referred, named, kept_said = current(referred), current(named), current(kept_said)
    earlier = [q for q in versions if q < pos and versions[q][0] == header]
    since = max(earlier) if earlier else -1  # the fetch before this one, or a remembered one
    older = versions[since] if earlier else None
    for item in remembered if older is None else ():
        other = recall_table(item.get("table"))
        older = other if other is not None and other[0] == header else older
    fresh = {j for _i, j in updated_rows(older, table)} - stale if older is not None else set()
    if fresh:
        before = [(role, words) for at, role, words in sayings if since < at < pos]
        hits = named_by(table, [w for _r, w in before], nouns=nouns, apart=True)
        back = [(r, w) for (r, w), hit in zip(before, hits, strict=True) if hit and hit <= fresh]
        referred = [*(w for _r, w in back), *referred]
        named = [*(w for r, w in back if r == "user"), *named]
    return referred, named, kept_said


def _asking(
    users: Sequence[tuple[Fact, frozenset[str]]], on: bool = True
) -> list[Callable[[tuple[int, ...]], bool]]:
    """For each user's line, whether a record at an order is the result it asks for.

    "Run track_parcels for me, I want the Kestrel Freight 3 one.": the request names the row
    before the tool shows it, and the record answers it. A record after a user's line, in the
    same part (the previous summary's lines or the span), at most :data:`_REQUEST_REACH` lines
    or messages on and before the next user's line, is that line's result, and a row the line
    names alone lends the record the line's rank (never the cut) in
    :meth:`ExtractiveSummarizer._bind_named_rows`, as a later line naming it does, unless a
    record of the same columns before the line has the row (that one the line names, as
    before: a list fetched again after a line naming its row is no answer to it). Without it
    the request outranked the record that holds what it asked for (own ``record-shapes``:
    the request kept at 4.57, the record holding the cell dropped at 1.41). Off with
    ``ablate=["asked_rank"]``: only lines after a record bind to it.
    """
    if not on:
        return [lambda _order: False for _ in users]
    starts = sorted(tuple(user.order) for user, _said in users)
    out: list[Callable[[tuple[int, ...]], bool]] = []
    for user, _said in users:
        at = tuple(user.order)
        nxt = bisect_right(starts, at)
        bound = starts[nxt] if nxt < len(starts) else None

        def asks(
            order: tuple[int, ...], at: tuple[int, ...] = at, bound: tuple[int, ...] | None = bound
        ) -> bool:
            if at[0] == _KEPT or order[0] != at[0] or not at < tuple(order):
                return False
            return order[1] - at[1] <= _REQUEST_REACH and (bound is None or tuple(order) < bound)

        out.append(asks)
    return out


def _answers(
    newest: dict[tuple[str, ...], tuple[int, set[int]]],
    asked: Sequence[tuple[int, set[int]]],
    records: Sequence[tuple[Fact, str, str, Table, frozenset[str]]],
    latest: Mapping[tuple[str, ...], int],
    user: Fact,
    said: frozenset[str],
) -> None:
    """Drop from ``newest`` the records a request binds that do not answer it (``asked_rank``).

    ``asked``: the records after the request that it binds. When the request names a tool
    ("Run stock_levels for me, ...") and one of them is that tool's, the others are not its
    answer (a row of another table with the same name, shown in reach). A record whose table
    was fetched again later with the row the request names is no answer either: that later
    version is current, and the request's rank must not keep the stale one over it.
    """
    text = user.line.lower()
    tools = {r: records[r][1].partition("(")[0].strip().lower() for r, _hit in asked}
    named = {r for r, tool in tools.items() if tool and tool in text}
    for r, _hit in asked:
        _fact, _head, _record, table, nouns = records[r]
        key = tuple(table[0])
        newer = latest.get(key, r)
        stale = False
        if newer != r:  # the latest fetch of the table: does it show the row asked for?
            again = named_by(
                records[newer][3], [said], keys=True, nouns=nouns, names=True, apart=True
            )
            stale = len(again[0]) == 1
        if stale or (named and r not in named):
            del newest[key]


def _said_words(messages: Sequence[Message]) -> list[frozenset[str]]:
    """Each of the span's user messages' words (an assistant echoing its tools is not one)."""
    return [said_words(content_text(m)) for m in messages if m.role == "user" and not m.is_summary]


_REQUEST_REACH = 4
"""How far before a tool result the user's request for it may be: the request, the call,
perhaps a parallel call or an assistant's word between, then the result."""


def _request(sayings: Sequence[tuple[int, str, frozenset[str]]], pos: int) -> frozenset[str] | None:
    """The words of the user's request a tool result at ``pos`` answers, or None.

    "Pull up the invoices, what's due on the Okonkwo one?": a user names the row they want in
    the request that fetches the table, before any row is shown (the ``asked_rows`` rule).
    The last user message before ``pos``, at most :data:`_REQUEST_REACH` messages before it,
    read as a message after the result would be: its cells and descriptions name rows.
    """
    before = [(at, words) for at, role, words in sayings if at < pos and role == "user"]
    if not before or pos - before[-1][0] > _REQUEST_REACH:
        return None
    return before[-1][1]


def _sayings(messages: Sequence[Message]) -> list[tuple[int, str, frozenset[str]]]:
    """Each user or assistant message's position, role and words (:func:`.tables.said_words`).

    An assistant's words name a row by a cell, never by description (:class:`.tables.Echoed`).
    """
    return [
        (pos, m.role, (Echoed if m.role == "assistant" else frozenset)(said_words(content_text(m))))
        for pos, m in enumerate(messages)
        if m.role in ("user", "assistant") and not m.is_summary
    ]


def _next_memory(
    remembered: list[dict[str, Any]], seen: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The tables the next summary remembers: this span's, and earlier ones still young."""
    aged = [{**item, "rounds": int(item.get("rounds", 0)) + 1} for item in remembered]
    young = [item for item in aged if item["rounds"] < _MEMORY_ROUNDS]
    new = [{k: v for k, v in item.items() if k != "pos"} for item in seen]
    return (young + new)[-MAX_REMEMBERED:]


def _remembered_tables(extra: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The tables a previous summary remembered (``extra["tables"]``), well-formed ones."""
    raw = extra.get("tables") if extra is not None else None
    out: list[dict[str, Any]] = []
    for item in raw if isinstance(raw, list) else ():
        good = isinstance(item, Mapping) and isinstance(item.get("head"), str)
        if good and recall_table(item.get("table")) is not None:
            out.append(dict(item))
    return out[-MAX_REMEMBERED:]


class _Change(NamedTuple):
    """A row two lists of the same columns share: the newer row, the older, the changed cells."""

    row: Sequence[str]
    earlier: Sequence[str]
    cells: frozenset[int]


def _changes(
    newer: tuple[Table, set[int]],
    older: tuple[Table, set[int]],
    said: AbstractSet[str] = frozenset(),
    nouns: AbstractSet[str] = frozenset(),
) -> list[_Change]:
    """The older list's cells a message's row changed in the newer list, if it is one row.

    Both lists name one row for the message (``said``: its words), the two rows share a key
    cell (:func:`.tables.key_columns` of both) and differ in other cells: the same row, updated.
    Nothing when either names several rows or none, or when the rows agree (fetched again).
    When the message says a changed column's name ("the amount on the Lindqvist invoice"),
    only the columns it says: what was asked of the row, not a whole row of earlier cells
    (every changed cell: ``tables`` 0.837 / 0.450 -> 0.837 / 0.420 after 10 reductions / at the
    end at 4,000, 5 seeds; the asked ones: 0.860 / 0.450; see ``docs-notes/tables.md``, ninth
    round). A column's name that is also what the rows are called (``nouns``,
    :func:`.described.row_nouns`: "invoice" in ``list_invoices``' column ``invoice``) is not
    asked by saying it: "Chase the Okonkwo invoice" names the row, not its invoice code (read
    as the code's column, the older amount and due date were lost: ``docs-notes/tables.md``,
    eleventh round).
    """
    (new_table, new_hit), (old_table, old_hit) = newer, older
    if len(new_hit) != 1 or len(old_hit) != 1:
        return []
    row, earlier = new_table[1][min(new_hit)], old_table[1][min(old_hit)]
    if len(row) != len(earlier):
        return []
    keys = key_columns(new_table) & key_columns(old_table)
    if not any(row[c] == earlier[c] for c in keys):
        return []
    cells = {c for c in range(len(row)) if row[c] != earlier[c]}
    asked = {c for c in cells if (_column_words(new_table[0][c]) - nouns) & said}
    return [_Change(row, earlier, frozenset(asked or cells))] if cells else []


def _earlier_cell(cell: str) -> str:
    """An older list's cell as a noted row writes it, one line with no ``"; "``.

    ``"; "`` separates a record's rows: a stored cell cannot add a line or a row to the summary.
    """
    return _one_line(cell).replace("; ", ", ")


def _column_words(name: str) -> frozenset[str]:
    """A column's name as the words a message says it by (``unit_price``: unit, price)."""
    return frozenset(w for w in tokenize(fold(name.replace("_", " "))) if w not in STOPWORDS)


def _with_row(line: str, row: str, noted: str) -> str | None:
    """``line`` (a table record) with its row ``row`` written as ``noted``; None without it."""
    head, sep, rest = line.partition("] ")
    if not sep:
        return None
    more = _MORE_TAIL_RE.search(rest)
    tail = more.group(0) if more is not None else ""
    rows = rest[: len(rest) - len(tail)].split("; ")
    if row not in rows:
        return None
    return f"{head}{sep}{'; '.join(noted if r == row else r for r in rows)}{tail}"


def _keyed_alone(table: Any, said: Sequence[frozenset[str]], head: str) -> bool:
    """Whether users' later messages name one row of ``table`` alone, by a key cell.

    The evidence a remembered table's row gets :data:`_W_RECALLED` for (the one row the
    conversation came back to); a reference in the same span as the table is the same
    evidence: weighed less (:data:`_W_REFERRED`), the record lost to the span's small talk
    and was never carried, while the same reference one span later brought the row back.
    """
    hits = named_by(table, said, keys=True, nouns=row_nouns(head))
    rows: set[int] = set().union(*hits)
    return len(rows) == 1


def _used_table(body: str, referred: Said, min_rows: int = 1) -> bool:
    """Whether ``body`` is a table record a later message refers to by one of its rows.

    A table of fewer than ``min_rows`` rows (a record or two) is no table to pick from.
    """
    head, sep, record = body.partition(" -> ")
    table = parse_record(record) if sep else None
    if table is None:
        return False
    shown = len(table[1]) + sum(int(n) for n in _MORE_ROWS_RE.findall(record))
    return shown >= min_rows and referred_rows(table, referred, row_nouns(head)) > 0


def _reply_fact(
    asked: tuple[str, list[str], list[float]],
    reply: str,
    reply_id: str,
    focus: frozenset[str],
    off: frozenset[str],
) -> tuple[str, float, list[str]] | None:
    """A bare reply of the user with what it answers: ``(body, score, ids)``, or None.

    "ok, lock that in" after "Shall I hold the 7:40 to Leeds on Friday?" becomes the body ``ok,
    lock that in, in reply to: Shall I hold the 7:40 to Leeds on Friday?``, scored as the
    question told as a statement, plus a decision: the reply decides what was asked.
    """
    asked_id, sentences, _scores = asked
    if not is_bare_reply(reply, " ".join(sentences)):
        return None
    at = answered_sentence(sentences, reply)
    if at is None:
        return None
    offer = sentences[at]
    score = score_sentence(offer, "user", focus, off=off | {"question_discount"})
    if score <= 0:
        return None
    body = _in_reply_to(reply, "in reply to", offer)
    return body, score + _W_DECISION, [asked_id, reply_id]


def _tool_score(body: str, off: frozenset[str] = frozenset()) -> float:
    """A result says what is new; the call's arguments, mostly known already, count for less."""
    head, _, result = body.partition(" -> ")
    return score_sentence(result, "tool", off=off) + _ARGS_WEIGHT * score_sentence(
        head, "tool", off=off
    )


def _second_sentences(facts: list[Fact]) -> None:
    """A message's best sentence stands for it; its others must say more to be kept.

    A sentence that brings a number or code of its own (a date, an amount) is not discounted.
    """
    if len(facts) > 1:
        best = max(facts, key=lambda f: f.priority)
        for fact in facts:
            if fact is not best and fact.digits <= best.digits:
                fact.priority *= _SAME_MESSAGE


def _call_head(tool_call: Mapping[str, Any]) -> tuple[str, dict[str, str]]:
    """A call as shown in a fact, and its arguments (empty when they are not an object)."""
    fn = tool_call.get("function")
    if isinstance(fn, Mapping):
        args = call_arguments(fn.get("arguments", ""))
        if args is not None:
            return compact_call(_one_line(str(fn.get("name", "?")))[:64], args), args
    return _one_line(format_call(tool_call, max_chars=200)), {}


def length_density(score: float, line: str) -> float:
    """Score per length, mildly: a long line must say more to earn its tokens."""
    return score / (1.0 + len(line) / _LINE_CHARS)


def _words(line: str) -> frozenset[str]:
    """What a fact is, for near-duplicate detection: its speaker and words, not its date."""
    return content_words(line[2:])


def _one_line(text: str) -> str:
    return _SPACE_RE.sub(" ", text).strip()


def _speaker(value: str) -> str:
    return _SPEAKER_RE.sub(" ", value).strip()[:40] or "unknown"


def _shares_labels(info: Any) -> bool:
    """Whether the previous summary is in the layout where a run of lines shares a label.

    Recorded in its ``extra["format"]`` (this summarizer's :data:`FORMAT`, or kept by
    :class:`~summem.summarizers.chain.TruncatingSummarizer` when it clipped one); an older
    extractive summary or another summarizer's text gives no line a label it did not write.
    """
    extra = previous_extra(info)
    return extra is not None and extra.get("format") == FORMAT


_ALONE = 0.3
"""What a short sentence pointing at what it never names keeps of its score, unjoined."""
_PEOPLE = ("user", "assistant")
"""The roles a named person speaks in, in a dialogue replayed as a chat (see
:func:`_answers_named`)."""
_W_ANSWER = 1.5
"""What a statement of the user's adds when it answers what the assistant asked about them
(:func:`.context.asks_the_user`): "Is there a lift where you live?" - "No lift, and we're on the
third floor." The assistant asked because the answer shapes what it says next, and it may need
it again; told in reply, such a detail carries no cue word and rarely a value, and scored alone
it lost to the user's small talk with numbers in it (``prose-answers``)."""

_Origin = tuple[list[str], float | None, list[str], str | None, int, int, list[tuple[str, float]]]


def _previous_provenance(info: Any) -> dict[int, _Origin]:
    """``line -> (ids, score, marks, core, more, own)`` recorded by the previous summary.

    Ids and marks are capped (:data:`~.selection.MAX_LINE_IDS`) here too, for records written
    before the cap.
    """
    extra = previous_extra(info)
    if extra is None:
        return {}
    entries = extra.get("provenance")
    out: dict[int, _Origin] = {}
    if not isinstance(entries, list):
        return out
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        line, ids, score = entry.get("line"), entry.get("ids"), entry.get("score")
        if isinstance(line, int) and isinstance(ids, list):
            known = None
            if isinstance(score, (int, float)) and not isinstance(score, bool) and score > 0:
                known = float(score)
            marks = entry.get("marks")
            marked = [i for i in marks if isinstance(i, str)] if isinstance(marks, list) else []
            core = entry.get("core")
            own = max(_stored_count(entry.get("own")), 1)
            kept, left = bound_ids(
                list(dict.fromkeys(i for i in ids if isinstance(i, str))),
                _stored_count(entry.get("more")),
                own,
            )
            out[line] = (
                kept,
                known,
                marked[-MAX_LINE_IDS:],
                core if isinstance(core, str) and core.strip() else None,
                left,
                min(own, len(kept)),
                _absorbed(entry.get("absorbed")),
            )
    return out


def _counts(info: Any) -> dict[int, tuple[int, int]]:
    """``line -> (seen, said)`` the previous summary recorded (each 2 or more, else 0).

    ``"seen"``: the occasions of the line's template; ``"said"``: the messages its sentence
    was said in (the repeats rule's count). Two counts, never mixed: a phrase said in many
    messages is not a frame said on as many occasions.

    The template memory keeps :data:`~.templates.MEMORY_SIZE` frames; a phrasebook larger
    than that thrashed it, and a frame it forgot was counted again from the previous
    summary's runs only (one or two), so its carried instances lost their discount and, at
    their full score, competed with details said once: in the own ``passing-details`` family
    (4,000/3,000/1,000, seeds 0-4) 10 to 25 carried lines a run were discounted in one round
    and not in the next, none once both counts were kept on the lines. A line records the
    count, so it lasts as long as one instance is carried (issue #29, round 8:
    ``docs-notes/fidelity-round8-prose.md``).
    """
    extra = previous_extra(info)
    entries = extra.get("provenance") if extra is not None else None
    out: dict[int, tuple[int, int]] = {}
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, Mapping) and isinstance(line := entry.get("line"), int):
            seen, said = _stored_count(entry.get("seen")), _stored_count(entry.get("said"))
            out[line] = (seen if seen > 1 else 0, said if said > 1 else 0)
    return out


_ENDS_ON_RESULT = "ends_on_result"
"""``extra`` key: the id of the tool result a span ended on (the next span's first message
may present it, "Here you go, 16 rows.")."""


def _ends_on_result(messages: Sequence[Message]) -> dict[str, str]:
    """``{ends_on_result: id}`` when the span's last message is a tool result, else nothing."""
    if messages and messages[-1].role == "tool":
        return {_ENDS_ON_RESULT: messages[-1].id}
    return {}


def _result_before(
    request: SummaryRequest, carried: Sequence[Fact]
) -> tuple[str, Fact | None] | None:
    """The tool result the previous span ended on, and the carried line citing it (if any)."""
    extra = previous_extra(request.previous_info)
    last = extra.get(_ENDS_ON_RESULT) if extra is not None else None
    if not isinstance(last, str):
        return None
    return last, next((f for f in carried if last in f.ids), None)


def _leanings(info: Any) -> dict[int, list[str]]:
    """``line -> ids`` of the messages each line of the previous summary leans on (``"leans"``)."""
    extra = previous_extra(info)
    entries = extra.get("provenance") if extra is not None else None
    out: dict[int, list[str]] = {}
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, Mapping) and isinstance(line := entry.get("line"), int):
            leans = entry.get("leans")
            ids = [i for i in leans if isinstance(i, str)] if isinstance(leans, list) else []
            if ids:
                out[line] = ids[-MAX_LINE_IDS:]
    return out


def _link_leaning(facts: list[Fact]) -> list[Fact]:
    """``facts`` with each carried line that leans on another linked to it again.

    A line recorded as leaning (``"leans"``: "Here you go, 16 rows." after a tool result) is
    kept only beside the line citing what it leans on (:attr:`.selection.Fact.leans_on`);
    one whose partner is no longer among them is not carried: alone it says nothing.
    """
    by_id: dict[str, Fact] = {}
    for fact in facts:
        for i in fact.ids:
            by_id.setdefault(i, fact)
    kept: list[Fact] = []
    for fact in facts:
        if fact.leans:
            fact.leans_on = next((by_id[i] for i in fact.leans if i in by_id), None)
            if fact.leans_on is None or fact.leans_on is fact:
                continue
        kept.append(fact)
    return kept


_MAX_STORED_COUNT = 1_000_000
"""The most a count read back from a previous summary's provenance is taken for. Counts are
summem's own, but a summary record is data: a hand-edited or foreign ``"seen": 10**400`` must
not overflow a discount's float power and fail the reduction."""


def _stored_count(value: Any) -> int:
    """A count a provenance entry records: ``"more"``, ``"own"``, ``"seen"``, ``"said"``.

    A positive int, capped at :data:`_MAX_STORED_COUNT`; 0 for anything else.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return min(value, _MAX_STORED_COUNT)
    return 0


def _absorbed(raw: Any) -> list[tuple[str, float]]:
    """The ``"absorbed"`` sentences a provenance entry records: ``[text, score]`` pairs."""
    out: list[tuple[str, float]] = []
    for item in raw if isinstance(raw, list) else ():
        if isinstance(item, list) and len(item) == 2:
            text, score = item
            good = isinstance(score, (int, float)) and not isinstance(score, bool) and score > 0
            if isinstance(text, str) and text.strip() and good:
                out.append((_one_line(text), float(score)))
    return out
