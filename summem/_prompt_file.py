"""The schema of a prompt file, kept apart from loading and rendering (:mod:`summem.prompts`).

Unknown keys are errors (``extra="forbid"``) and types are strict, so a typo in a prompt file
fails when it is loaded, with the key named, instead of being silently ignored.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

__all__ = ["ParameterValue", "PromptFile", "PromptMessage"]

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

    @field_validator("version", mode="before")
    @classmethod
    def _int_version(cls, value: object) -> object:
        # ``version: 1`` is the natural way to write it; a float (``1.10``) would lose digits.
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return value

    @field_validator("parameters")
    @classmethod
    def _no_reserved(cls, value: dict[str, ParameterValue]) -> dict[str, ParameterValue]:
        bad = sorted(set(value) & _RESERVED_PARAMETERS)
        if bad:
            raise ValueError(f"reserved names cannot be set by a prompt: {', '.join(bad)}")
        return value
