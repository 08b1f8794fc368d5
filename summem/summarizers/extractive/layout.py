"""The extractive summary's text layout: fact lines grouped under date headers, and back.

A summary is read by a model and, on the next reduction, parsed back by the extractive
summarizer, so the layout is both compact and unambiguous::

    - user: My order AX-4471 hasn't arrived yet.
    [8 May 2023]
    - Caroline: I went to a support group yesterday.
    - I'm going to a transgender conference this month.
    - tool: lookup_order(order_id=AX-4471) -> status=in transit; eta=2023-05-10

A ``[date]`` line dates every fact line below it, up to the next header; facts of no known date
come first, without one. A date is written once per group rather than once per line, which
matters when a conversation comes in dated sessions: a 10-token date on each of 50 lines would
take half of a 1,000-token summary.

A run of one speaker's lines carries the speaker's label once: a fact line with no label
after a labelled one in the same date group is the same speaker's (above, Caroline's). "- user:
" is 3 tokens of a 21-token line; one label per run leaves 6 to 8 % of a summary for more facts
(``docs-notes/budget-use.md``, fifth round). Tool results keep their label, and so does a line
whose body could read as a label or a date. A line that has no label (a sentence carried from an
LLM's summary) never follows a labelled one directly: a blank line ends the run before it, so
it is not read back as that speaker's.

Dates come from the message (:func:`summem.summarizers.render.message_timestamp`) or, when it
has none, from a bracketed date or time opening its text (``"[1:56 pm on 8 May, 2023] Hey!"``:
a transcript's session stamp is when it was said, not what was said). Only the day is kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from summem.summarizers.extractive.facts import split_sentences

__all__ = [
    "FACT_LINE_RE",
    "HEADER_RE",
    "day_of",
    "header",
    "leading_stamp",
    "looks_like_date",
    "read_fact_line",
    "shared_label_lines",
    "summary_lines",
]

FACT_LINE_RE = re.compile(r"^- (?:\[(?P<date>[^\]]{1,40})\] )?(?:(?P<speaker>[^:\[\]]{1,70}): )?")
"""Prefix of one fact line: ``- speaker: body``; ``- [date] speaker: body`` in the format before
date headers, still read."""
HEADER_RE = re.compile(r"^\[(?P<date>[^\[\]]{1,40})\]$")
"""A date header line."""

_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY_PATTERNS = (
    re.compile(r"\b\d{4}-\d{2}-\d{2}\b"),
    re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)? {_MONTHS},? \d{{4}}\b", re.IGNORECASE),
    re.compile(rf"\b{_MONTHS} \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}\b", re.IGNORECASE),
    re.compile(r"\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b"),
)
_DATEISH_RE = re.compile(
    rf"\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}:\d{{2}}|\d{{1,2}}[/.]\d{{1,2}}[/.]\d{{2,4}}"
    rf"|\b{_MONTHS}\b|\b\d{{1,2}} ?[ap]\.?m\b",
    re.IGNORECASE,
)
_STAMP_RE = re.compile(r"^\s*\[(?P<stamp>[^\[\]\n]{4,48})\]\s*")
_SPACE_RE = re.compile(r"\s+")
_LIST_MARK_RE = re.compile(r"^(?:[*\u2022+-]|\d{1,3}[.)])\s+")


def looks_like_date(text: str) -> bool:
    """True when ``text`` has a digit and reads as a date or a time of day."""
    return any(c.isdigit() for c in text) and _DATEISH_RE.search(text) is not None


def leading_stamp(text: str) -> tuple[str | None, str]:
    """Split a bracketed date or time opening ``text`` from the rest: ``(stamp, rest)``."""
    m = _STAMP_RE.match(text)
    if m is None or not looks_like_date(m.group("stamp")):
        return None, text
    return _SPACE_RE.sub(" ", m.group("stamp")).strip(), text[m.end() :]


def day_of(stamp: str) -> str:
    """The day of a timestamp as written (``"8 May 2023"``, ``"2023-05-08"``), else all of it."""
    for pattern in _DAY_PATTERNS:
        m = pattern.search(stamp)
        if m:
            return m.group(0).replace(",", "")
    return _SPACE_RE.sub(" ", stamp).strip().replace("[", "(").replace("]", ")")[:40]


def header(day: str) -> str:
    """The header line of a date group."""
    return f"[{day}]"


def read_fact_line(line: str) -> tuple[str, str | None, str | None, str]:
    """One ``- `` line as :func:`summary_lines` reads it: ``(line, date, speaker, body)``.

    An inline ``[date]`` (the older format) leaves the line and becomes its date; any other
    bracket stays (``- [x] Bob: ...`` is Bob's, and keeps its ``[x]``).
    """
    m = FACT_LINE_RE.match(line)
    own = m.group("date") if m else None
    if own is not None and looks_like_date(own):
        line = "- " + line[line.index("] ") + 2 :]
        m = FACT_LINE_RE.match(line)
    else:
        own = None
    speaker = (m.group("speaker") or None) if m else None
    body = line[m.end() :] if m and speaker else line[2:]  # "- [x] done" says "[x] done"
    return line, own, speaker, body


def shared_label_lines(lines: Sequence[str]) -> list[list[str]]:
    """The summary's lines for each of ``lines``: a run of one speaker's lines shares a label.

    ``lines`` are date headers and full fact lines in order. A fact line right after one of the
    same speaker is written ``- body`` only when :func:`summary_lines` gives back exactly that
    line: never a tool result, a body that reads as a label or a date, nor a label the reader
    parses otherwise (``- [x] Bob: ...`` reads as Bob's, so the next Bob line keeps its label). A
    line the reader would give a label it does not have (prose carried from an LLM's summary,
    right after a labelled line) comes after a blank line, which ends the run.
    """
    out: list[list[str]] = []
    last: str | None = None  # the label the reader carries at this point
    for full in lines:
        if not full.startswith("- "):
            last = None
            out.append([full])
            continue
        _line, _own, speaker, body = read_fact_line(full)
        short = f"- {body}"
        if (
            speaker is not None
            and speaker == last
            and speaker != "tool"
            and f"- {speaker}: {body}" == full
            and read_fact_line(short)[:3] == (short, None, None)
            and f"- {speaker}: {read_fact_line(short)[3]}" == full  # what the reader gives back
        ):
            out.append([short])
        elif speaker is None and last is not None:
            out.append(["", full])  # the blank line: the reader gives this line no label
            last = None
        else:
            out.append([full])
            last = speaker
    return out


def summary_lines(
    text: str, max_chars: int = 280, *, shared_labels: bool = False
) -> Iterator[tuple[int, str | None, str, str]]:
    """Facts of a previous summary: ``(line index, date, fact line, body)``.

    Fact lines (any line starting with ``- ``) are kept verbatim, whatever their length, so a
    fact survives round after round unchanged; an inline ``[date]`` (the older format) becomes
    the fact's date and leaves the line. A ``[date]`` header dates the lines below it. Other
    text (a summary written by an LLM) is split into sentences, each becoming a ``- sentence``
    line; headings are dropped.

    With ``shared_labels`` (a summary this layout wrote, ``FORMAT`` 3 or later), a fact line
    with no label right after a labelled one gets that label back: ``- body`` after
    ``- Caroline: ...`` is ``- Caroline: body``. Any other line (a date header, a blank line,
    a heading, prose) ends the run. Without it no label is ever given: in text another
    summarizer wrote (an LLM's ``- Tone: friendly`` then ``- The user moved ...``), an
    unlabelled line is nobody's.
    """
    day: str | None = None
    last: str | None = None
    for index, raw in enumerate(text.split("\n")):
        line = _SPACE_RE.sub(" ", raw).strip()
        if not line.startswith("- "):
            last = None  # only a run of fact lines shares a label
        if not line:
            continue
        head = HEADER_RE.match(line)
        if head is not None and looks_like_date(head.group("date")):
            day = head.group("date")
            continue
        if line.startswith("- "):
            line, own, speaker, body = read_fact_line(line)
            if speaker:
                last = speaker if shared_labels else None
            elif last is not None:
                line = f"- {last}: {body}"
            yield index, own or day, line, body
            continue
        stripped = _LIST_MARK_RE.sub("", line).strip()
        if (
            not stripped
            or line.startswith(("#", "["))
            or (stripped.endswith(":") and len(stripped) < 60)
        ):
            continue
        for sentence in split_sentences(stripped, max_chars):
            yield index, day, f"- {sentence}", sentence
