"""Named sections of a structured summary, carried forward from one summary to the next.

A structured prompt (``sections:`` in its YAML file, e.g. ``summarize-structured``) asks the
model for a summary made of ``## Heading`` blocks: the user's statements, decisions, open
tasks, values with their latest correction... Each reduction rewrites the whole summary, and
a model that forgets a block loses everything in it for good: a rolling summary has no other
copy. So a reply is checked against the previous summary: every declared section the previous
summary had must be in the reply.

**A missing section is repaired, not rejected**: the previous summary's block is carried
forward verbatim, in its declared place. Rejecting would throw away the reply's new facts and
spend another call that may drop the section again; the previous block is known good and
nothing in the new span touched it (had the span changed it, the model would have written the
section). The repaired summary still goes through the reducer's checks: when the carried block
takes it past ``summary_max_tokens`` (with its slack), the summary is rejected as too long and
the fallback chain decides, as for any other reply. A section the model empties on purpose
is written as its heading with a ``- (none)`` line, which counts as present.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["carry_sections", "split_sections"]

_HEADING = re.compile(r"^#{1,3}\s+(.+?)\s*:?\s*$")


def split_sections(text: str) -> tuple[str, dict[str, str]]:
    """``text`` as its preamble (before the first heading) and its ``## `` blocks by name.

    A block is its heading line and the lines up to the next heading. Names are compared
    without case and without a trailing colon.
    """
    preamble: list[str] = []
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        found = _HEADING.match(line.strip())
        if found is not None:
            current = blocks.setdefault(_key(found.group(1)), [])
            current.append(line)
        elif current is None:
            preamble.append(line)
        else:
            current.append(line)
    return "\n".join(preamble).strip(), {k: "\n".join(v).strip() for k, v in blocks.items()}


def carry_sections(reply: str, previous: str | None, sections: Sequence[str]) -> str:
    """``reply`` with every declared section of ``previous`` it left out carried forward.

    Sections the previous summary did not have, or that only its heading had (no lines),
    are not required. Carried blocks go after the reply's last section that comes before
    them in ``sections``' order. Returns ``reply`` unchanged when nothing is missing.
    """
    if not previous or not sections:
        return reply
    _, before = split_sections(previous)
    _, after = split_sections(reply)
    order = [_key(s) for s in sections]
    missing = [k for k in order if k in before and k not in after and "\n" in before[k].strip()]
    if not missing:
        return reply
    preamble, blocks = split_sections(reply)
    for key in missing:
        blocks[key] = before[key]
    rank = {k: i for i, k in enumerate(order)}
    names = sorted(blocks, key=lambda k: rank.get(k, len(order)))  # stable: extras last
    body = "\n\n".join(blocks[k] for k in names)
    return f"{preamble}\n\n{body}" if preamble else body


def _key(heading: str) -> str:
    return heading.strip().rstrip(":").strip().lower()
