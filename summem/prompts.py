"""Summarization prompts as versioned YAML data files, validated once when they are loaded.

Prompts are data, not code strings: ``prompts/<name>.yaml`` at the repository root, shipped in
the wheel as ``summem/_prompts/``. A prompt file is read with yaml's safe loader under a size
cap, validated by a pydantic model that forbids unknown keys, and its ``{placeholder}`` fields
are checked at load: an unknown or missing placeholder is a :class:`~summem.errors.PromptError`
naming the file and the key, never a surprise at the first reduction.

Rendering is single-pass and does not use ``str.format`` or a template engine: the template is
split into literal text and placeholders when it is loaded, and rendering only concatenates.
Substituted values are never scanned again, so conversation text such as ``{x}``,
``{{ 7*7 }}`` or ``{% if %}`` reaches the model verbatim. Values are also passed through
:func:`neutralize_delimiters`, so a message cannot close the ``<transcript>`` block it sits in.

A prompt file looks like this::

    name: summarize
    version: "1"
    description: Rolling summary of the evicted turns.
    parameters: {temperature: 0}
    messages:
      - role: system
        content: "Keep it under {max_tokens} tokens."
      - role: user
        content: |
          <previous_summary>{previous_summary}</previous_summary>
          <transcript>{transcript}</transcript>

Write ``{{`` and ``}}`` for literal braces in a prompt file.

Placeholders: ``{previous_summary}``, ``{transcript}`` and ``{max_tokens}`` (required),
``{focus}``, ``{must_keep}``, and the opt-in ``{kept}``: the turns that stay verbatim in the
view after the span (``SummaryRequest.kept``, redacted like the span when a redactor is set),
rendered like the transcript, for the model to judge what of the span the conversation still
uses. They are context, not to summarize: a prompt that uses ``{kept}`` should say so (see
``prompts/summarize-kept.yaml``). A prompt without it sends nothing more. Where the model's
input limit is known, the kept turns take at most half the room it leaves the span: the first
turns after the span are shown, the rest left out. A span split into several calls shows
them to its last call only (the one they follow; the others read ``(none)``). Reusing the
assistant's cached request, the kept turns it holds are named by position ("messages #5 to #6
above"), and only those said since it was sent are written out.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator

from summem._delimiters import DEFAULT_DELIMITERS, TAG_RE, neutralize_delimiters
from summem._yaml import MAX_YAML_BYTES, YAMLFileError, parse_yaml, read_capped
from summem.errors import PromptError

if TYPE_CHECKING:  # importlib.resources.abc is 3.11+
    from importlib.abc import Traversable

__all__ = [
    "DEFAULT_DELIMITERS",
    "KNOWN_PLACEHOLDERS",
    "MAX_PROMPT_BYTES",
    "NOTHING_GIVEN",
    "NO_PREVIOUS_SUMMARY",
    "REQUIRED_PLACEHOLDERS",
    "ParameterValue",
    "PromptFile",
    "PromptMessage",
    "PromptTemplate",
    "available_prompts",
    "load_prompt",
    "neutralize_delimiters",
    "parse_prompt",
]

MAX_PROMPT_BYTES = MAX_YAML_BYTES
"""Largest prompt file accepted; a prompt is a few KiB, anything bigger is a mistake."""

KNOWN_PLACEHOLDERS: frozenset[str] = frozenset(
    ("previous_summary", "transcript", "max_tokens", "focus", "must_keep", "kept")
)
REQUIRED_PLACEHOLDERS: frozenset[str] = frozenset(("previous_summary", "transcript", "max_tokens"))


# -- the file's schema: unknown keys are errors, types are strict -------------------------------

_RESERVED_PARAMETERS = frozenset(
    ("messages", "model", "stream", "tools", "n", "api_key", "api_base", "base_url")
)
ParameterValue = str | int | float | bool | None
"""A model parameter's value: prompts set simple values only."""


def _check_scalar(value: object) -> object:
    if value is not None and not isinstance(value, (str, int, float, bool)):
        raise ValueError(f"must be a string, number, boolean or null, not {type(value).__name__}")
    return value


_Parameter = Annotated[ParameterValue, BeforeValidator(_check_scalar)]


class PromptMessage(BaseModel):
    """One chat message of a prompt; ``content`` may hold placeholders."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    role: Literal["system", "developer", "user", "assistant"]
    content: str = Field(min_length=1)


class PromptFile(BaseModel):
    """The schema of a prompt file; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    name: str = Field(min_length=1)
    """Identifies the prompt in provenance, e.g. ``"summarize"``."""
    version: str = Field(min_length=1)
    """Bumped whenever the wording changes, so summaries record which prompt wrote them."""
    description: str = ""
    parameters: dict[str, _Parameter] = Field(default_factory=dict)
    """Model parameters sent with the prompt (``temperature``, ``max_tokens``...)."""
    messages: list[PromptMessage] = Field(min_length=1)
    sections: list[str] = Field(default_factory=list)
    """The ``## `` headings a structured prompt writes; a section the previous summary had
    is carried forward when a reply leaves it out (:mod:`summem.summarizers.sections`)."""

    @field_validator("version", mode="before")
    @classmethod
    def _int_version(cls, value: object) -> object:
        # ``version: 1`` is the natural way to write it; a float (``1.10``) would lose digits.
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return value

    @field_validator("sections")
    @classmethod
    def _plain_headings(cls, value: list[str]) -> list[str]:
        for heading in value:
            if not heading.strip() or "\n" in heading or heading != heading.strip():
                raise ValueError(f"a section is one non-empty line, got {heading!r}")
        if len(set(value)) != len(value):
            raise ValueError("sections are named once each")
        return value

    @field_validator("parameters")
    @classmethod
    def _no_reserved(cls, value: dict[str, ParameterValue]) -> dict[str, ParameterValue]:
        bad = sorted(set(value) & _RESERVED_PARAMETERS)
        if bad:
            raise ValueError(f"reserved names cannot be set by a prompt: {', '.join(bad)}")
        return value


# -- templates ------------------------------------------------------------------------------

NO_PREVIOUS_SUMMARY = "(none yet: this is the first summary)"
"""What ``{previous_summary}`` reads when there is none yet."""
NOTHING_GIVEN = "(none)"
"""What ``{focus}``, ``{must_keep}`` and ``{kept}`` read when there is nothing to give."""

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_TOKEN_RE = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")
_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


_Segment = str | tuple[str]
"""Literal text, or a one-tuple holding a placeholder name."""


@dataclass(frozen=True)
class PromptTemplate:
    """A validated prompt, ready to render.

    Attributes:
        name: the prompt's name.
        version: the prompt's version.
        hash: first 16 hex digits of the SHA-256 of the file's bytes.
        parameters: model parameters from the file.
        description: what the prompt is for.
        source: where it was loaded from (a path, or ``<string>``).
        placeholders: the placeholder names the prompt uses.
        delimiters: the block tags the prompt uses (``<transcript>``...); rendering neutralizes
            them inside every substituted value.
        sections: the ``## `` headings a structured prompt's summaries have (empty: free
            text), carried forward from the previous summary when a reply drops one.
    """

    name: str
    version: str
    hash: str
    parameters: dict[str, ParameterValue]
    description: str
    source: str
    placeholders: frozenset[str]
    delimiters: tuple[str, ...]
    _messages: tuple[tuple[str, tuple[_Segment, ...]], ...] = field(repr=False)
    sections: tuple[str, ...] = ()

    @property
    def ref(self) -> str:
        """``name@version``, as recorded in a summary's provenance."""
        return f"{self.name}@{self.version}"

    @property
    def instructions(self) -> str:
        """The prompt's own words, and what summem writes in place of an empty placeholder.

        Every message with its placeholders left out, then :data:`NO_PREVIOUS_SUMMARY` and
        :data:`NOTHING_GIVEN`.

        A reply that mostly repeats them is the model echoing its instructions, not a summary.
        """
        own = ("".join(s for s in segments if isinstance(s, str)) for _, segments in self._messages)
        return "\n".join((*own, NO_PREVIOUS_SUMMARY, NOTHING_GIVEN))

    def render(
        self,
        *,
        previous_summary: str | None,
        transcript: str,
        max_tokens: int,
        focus: str | None = None,
        must_keep: Sequence[str] = (),
        kept: str | None = None,
    ) -> list[dict[str, str]]:
        """Fill the placeholders and return the chat messages to send.

        Values are inserted verbatim (after delimiter neutralization) and never re-scanned.
        A placeholder the prompt does not use changes nothing: the messages are the same
        whatever its value.

        Args:
            previous_summary: the summary being replaced; ``None`` for the first one.
            transcript: the evicted span, rendered by
                :func:`summem.summarizers.render.render_transcript`.
            max_tokens: the summary's token budget.
            focus: what matters most, if the application said.
            must_keep: items the summary must carry verbatim.
            kept: the turns that stay verbatim after the span (``SummaryRequest.kept``),
                rendered like ``transcript``: context for ``{kept}``, not to summarize.
        """
        if isinstance(must_keep, str):
            raise TypeError("must_keep must be a sequence of strings, not a str")
        neutral = functools.partial(neutralize_delimiters, delimiters=self.delimiters)
        values = {
            "previous_summary": neutral(previous_summary)
            if previous_summary and previous_summary.strip()
            else NO_PREVIOUS_SUMMARY,
            "transcript": neutral(transcript),
            "max_tokens": str(int(max_tokens)),
            "focus": neutral(focus) if focus and focus.strip() else NOTHING_GIVEN,
            "must_keep": "\n".join(f"- {neutral(item)}" for item in must_keep)
            if must_keep
            else NOTHING_GIVEN,
            "kept": neutral(kept) if kept and kept.strip() else NOTHING_GIVEN,
        }
        return [
            {
                "role": role,
                "content": "".join(s if isinstance(s, str) else values[s[0]] for s in segments),
            }
            for role, segments in self._messages
        ]


# -- loading ----------------------------------------------------------------------------------


def load_prompt(name_or_path: str | Path = "summarize") -> PromptTemplate:
    """Load and validate a prompt.

    Args:
        name_or_path: a bare name (``"summarize"``) for a prompt shipped with summem, or the
            path of a YAML file (a :class:`~pathlib.Path`, or a string with a ``/`` or ending
            in ``.yaml``/``.yml``).

    Raises:
        PromptError: the prompt cannot be found, read or validated; names the file and key.
    """
    if isinstance(name_or_path, Path) or _looks_like_path(name_or_path):
        path = Path(name_or_path).expanduser()
        data = _read_capped(path)
        return parse_prompt(data, source=str(path))
    name = name_or_path
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise PromptError(f"invalid prompt name {name!r}; use a bare name or a path")
    for directory in _prompt_dirs():
        entry = directory / f"{name}.yaml"
        if entry.is_file():
            return parse_prompt(entry.read_bytes(), source=str(entry))
    known = ", ".join(available_prompts()) or "none"
    raise PromptError(f"no shipped prompt named {name!r}; available: {known}")


def available_prompts() -> list[str]:
    """Names of the prompts shipped with summem, sorted."""
    names: set[str] = set()
    for directory in _prompt_dirs():
        names.update(
            e.name[: -len(".yaml")]
            for e in directory.iterdir()
            if e.name.endswith(".yaml") and e.is_file()
        )
    return sorted(names)


def parse_prompt(data: str | bytes, *, source: str = "<string>") -> PromptTemplate:
    """Validate prompt text (YAML) and build its template.

    Args:
        data: the file's content.
        source: named in error messages and kept on the template.

    Raises:
        PromptError: naming ``source`` and the offending key.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    where = f"prompt file {source!r}"
    try:
        loaded = parse_yaml(raw, limit=MAX_PROMPT_BYTES)
    except YAMLFileError as exc:
        raise PromptError(f"{where}: {exc}") from None
    if loaded is None:
        raise PromptError(f"{where}: the file is empty")
    if not isinstance(loaded, dict):
        raise PromptError(
            f"{where}: key '<root>': expected a mapping with name, version and messages, "
            f"got {type(loaded).__name__}"
        )
    try:
        spec = PromptFile.model_validate(loaded)
    except ValidationError as exc:
        problems = "; ".join(
            f"key {_loc(err['loc'])!r}: {_hint(err['loc'], err['msg'])}" for err in exc.errors()
        )
        raise PromptError(f"{where}: {problems}") from None

    messages: list[tuple[str, tuple[_Segment, ...]]] = []
    used: set[str] = set()
    tags: set[str] = set()
    for i, msg in enumerate(spec.messages):
        segments = _compile(msg.content, where=where, key=f"messages[{i}].content")
        used.update(s[0] for s in segments if not isinstance(s, str))
        tags.update(m.group(0) for m in TAG_RE.finditer(msg.content))
        messages.append((msg.role, segments))
    missing = sorted(REQUIRED_PLACEHOLDERS - used)
    if missing:
        listed = ", ".join("{" + m + "}" for m in missing)
        raise PromptError(f"{where}: key 'messages': missing required placeholders {listed}")
    return PromptTemplate(
        name=spec.name,
        version=spec.version,
        hash=hashlib.sha256(raw).hexdigest()[:16],
        parameters=dict(spec.parameters),
        description=spec.description,
        source=source,
        placeholders=frozenset(used),
        delimiters=tuple(sorted(set(DEFAULT_DELIMITERS) | tags)),
        _messages=tuple(messages),
        sections=tuple(spec.sections),
    )


def _compile(content: str, *, where: str, key: str) -> tuple[_Segment, ...]:
    """Split ``content`` into literal text and placeholders, checking every brace."""
    segments: list[_Segment] = []
    literal: list[str] = []
    pos = 0
    for m in _TOKEN_RE.finditer(content):
        literal.append(content[pos : m.start()])
        pos = m.end()
        token = m.group(0)
        if token in ("{{", "}}"):
            literal.append(token[0])
            continue
        inner = m.group(1)
        if inner is None or not _IDENT_RE.match(inner.strip()):
            raise PromptError(
                f"{where}: key {key!r}: stray {token!r} at character {m.start()}; "
                "write {{ or }} for a literal brace"
            )
        if inner.strip() not in KNOWN_PLACEHOLDERS:
            known = ", ".join("{" + k + "}" for k in sorted(KNOWN_PLACEHOLDERS))
            raise PromptError(f"{where}: key {key!r}: unknown placeholder {token}; known: {known}")
        segments.append("".join(literal))
        literal = []
        segments.append((inner.strip(),))
    literal.append(content[pos:])
    segments.append("".join(literal))
    return tuple(s for s in segments if s != "")


def _looks_like_path(value: str) -> bool:
    return "/" in value or "\\" in value or value.endswith((".yaml", ".yml"))


def _read_capped(path: Path) -> bytes:
    try:
        return read_capped(path, MAX_PROMPT_BYTES)
    except OSError as exc:
        raise PromptError(f"prompt file {str(path)!r}: cannot be read ({exc.strerror})") from None
    except YAMLFileError as exc:
        raise PromptError(f"prompt file {str(path)!r}: {exc}") from None


def _prompt_dirs() -> list[Traversable]:
    """Where shipped prompts live: the wheel's ``summem/_prompts``, else the source tree."""
    dirs: list[Traversable] = []
    packaged = resources.files("summem") / "_prompts"
    if packaged.is_dir():
        dirs.append(packaged)
    source_tree = Path(__file__).resolve().parent.parent / "prompts"
    if source_tree.is_dir():
        dirs.append(source_tree)
    return dirs


def _loc(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<root>"


def _hint(loc: tuple[int | str, ...], msg: str) -> str:
    if loc[:1] == ("version",) and "string" in msg:
        return msg + ' (quote it: version: "1.0")'
    return msg
