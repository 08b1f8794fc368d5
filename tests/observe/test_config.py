"""``observe:`` in summem.yaml: hooks by import path and a spend limit shared by the memories."""

from __future__ import annotations

import pytest

from summem.config import parse_config
from summem.errors import ConfigurationError
from summem.events import MemoryEvent, ReductionCommitted
from summem.observe import OpenTelemetryHook, SpendLimit

SEEN: list[MemoryEvent] = []


def remember(event: MemoryEvent) -> None:
    SEEN.append(event)


YAML = """
budget: {threshold: 400, target: 300, summary_max_tokens: 100}
summary: {}
store: "memory://"
observe:
  hooks: ["tests.observe.test_config:remember", "summem.observe.otel.OpenTelemetryHook"]
  spend_limit: {max_tokens: 1000, window_seconds: 3600, scope: prefix, hold_ttl_seconds: 60}
"""


def test_hooks_and_the_spend_limit_come_from_the_config() -> None:
    SEEN.clear()
    config = parse_config(YAML)
    hooks = config.observe.build_hooks()
    assert hooks[0] is remember and isinstance(hooks[1], OpenTelemetryHook)
    limit = config.spend_limit()
    assert isinstance(limit, SpendLimit) and limit.scope == "prefix"
    assert limit.max_tokens == 1000 and limit.window_seconds == 3600
    assert limit.hold_ttl_seconds == 60
    assert config.spend_limit() is limit  # shared by every memory the config builds
    memory = config.build_memory("acme:1")
    assert memory.spend_limit is limit
    for i in range(40):
        memory.add({"role": "user", "content": f"turn {i} " + "word " * 30})
    assert any(isinstance(e, ReductionCommitted) for e in SEEN)
    memory.close()
    lines = config.describe()
    assert "hooks: tests.observe.test_config:remember" in "\n".join(lines)
    assert "spend limit: 1000 tokens per 3600 s, per prefix" in lines


@pytest.mark.parametrize(
    ("observe", "match"),
    [
        ("{hooks: [nope]}", "not 'package.module:name'"),
        ("{hooks: ['no_such_module_here:x']}", "cannot import"),
        ("{hooks: ['tests.observe.test_config:YAML']}", "not callable"),
        ("{spend_limit: {window_seconds: 5}}", "max_tokens, max_cost_usd"),
        ("{spend_limit: {max_tokens: 5, separator: ''}}", "separator"),
        ("{spend: 1}", "spend"),
    ],
)
def test_bad_observe_settings_are_named(observe: str, match: str) -> None:
    with pytest.raises(ConfigurationError, match=match):
        parse_config(f"observe: {observe}").observe.build_hooks()


def test_no_observe_section_means_no_hooks_and_no_limit() -> None:
    config = parse_config("budget: {threshold: 4000}")
    assert config.observe.build_hooks() == [] and config.spend_limit() is None
    cost = parse_config("observe: {spend_limit: {max_cost_usd: 2}}")
    assert "spend limit: $2.0 per process, per session" in cost.describe()
