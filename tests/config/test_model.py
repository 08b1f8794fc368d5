"""summem.yaml: discovery, every rejected setting by name, secrets, and the factories."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from summem.config.model import (
    BudgetConfig,
    SummemConfig,
    load_config,
    parse_config,
)
from summem.errors import ConfigurationError
from summem.reducers.summarization import SummarizationReducer
from summem.retry import RetryPolicy
from summem.stores.memory import InMemoryStore
from summem.stores.sqlite import SQLiteStore
from summem.stores.url import default_store_url
from summem.summarizers.chain import FallbackSummarizer, TruncatingSummarizer
from summem.summarizers.extractive.summarizer import ExtractiveSummarizer
from summem.summarizers.llm import LLMSummarizer
from tests.fakes.counters import WordCounter

SECRET = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX0123456789"


def write(tmp_path: Path, text: str, name: str = "summem.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def error_of(text: str, source: str = "summem.yaml") -> str:
    with pytest.raises(ConfigurationError) as info:
        parse_config(text, source=source)
    return str(info.value)


# -- discovery ------------------------------------------------------------------------------


def test_defaults_without_a_file_are_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config()
    assert config == SummemConfig() and config.source == "<defaults>"
    # not a summem.db in whatever folder the program runs from: the user's data folder
    assert config.model is None and config.store == default_store_url()
    assert config.store.startswith(f"sqlite:///{os.environ['SUMMEM_DATA_DIR']}")
    assert config.budget.threshold == 8000 and config.budget.effective_target == 6000
    with caplog.at_level(logging.INFO, logger="summem.config"):
        assert isinstance(config.build_summarizer(), ExtractiveSummarizer)
    assert "no model configured" in caplog.text and "extractive" in caplog.text
    assert any("offline" in line for line in config.describe())


def test_finds_summem_yaml_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "model: gpt-4o-mini\n")
    monkeypatch.chdir(tmp_path)
    config = load_config()
    assert config.model == "gpt-4o-mini" and config.source == "summem.yaml"


def test_summem_config_env_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, "budget: {unit: messages}\n", "other.yaml")
    monkeypatch.setenv("SUMMEM_CONFIG", str(path))
    monkeypatch.chdir(tmp_path)
    config = load_config()
    assert config.budget.unit == "messages" and config.budget.threshold == 40
    assert config.source == str(path)


def test_explicit_path_wins_and_must_exist(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "model: m\n", "a.yaml")).model == "m"
    with pytest.raises(ConfigurationError, match=r"nope\.yaml: no such file"):
        load_config(tmp_path / "nope.yaml")
    with pytest.raises(ConfigurationError, match="cannot be read"):
        load_config(tmp_path)


def test_empty_file_means_defaults(tmp_path: Path) -> None:
    assert (
        load_config(write(tmp_path, "# nothing set\n")).model_dump() == SummemConfig().model_dump()
    )


def test_file_size_is_capped(tmp_path: Path) -> None:
    path = write(tmp_path, "# " + "x" * 70_000 + "\n")
    with pytest.raises(ConfigurationError, match="larger than 65536 bytes"):
        load_config(path)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("model: [unclosed\n", "summem.yaml: line 2, column 1:"),
        ("model: a\nmodel: b\n", "summem.yaml: line 2, column 1: duplicate key 'model'"),
        ("budget:\n  threshold: 10\n  threshold: 20\n", "duplicate key 'threshold'"),
        ("- model\n", "summem.yaml: expected a mapping of settings at the top level"),
        ("!!python/object/apply:os.system ['true']\n", "could not determine a constructor"),
    ],
    ids=["syntax", "duplicate_top_level", "duplicate_nested", "not_a_mapping", "python_tag"],
)
def test_unreadable_yaml(text: str, expected: str) -> None:
    assert expected in error_of(text)


def test_non_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "summem.yaml"
    path.write_bytes(b"model: \xff\xfe\n")
    with pytest.raises(ConfigurationError, match="not UTF-8"):
        load_config(path)


# -- every bad setting, by name -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("budgt: {}\n", "summem.yaml: budgt: unknown key; did you mean 'budget'?"),
        ("zzz: 1\n", "summem.yaml: zzz: unknown key; expected one of: api_key_env, budget"),
        ("budget: {treshold: 9}\n", "summem.yaml: budget.treshold: unknown key; did you mean"),
        ("budget: 5\n", "summem.yaml: budget: must be a mapping of settings"),
        ("budget: {unit: lines}\n", "budget.unit: Input should be 'tokens' or 'messages'"),
        ("budget: {threshold: -5}\n", "budget.threshold: Input should be greater than 0"),
        ("budget: {threshold: '8000'}\n", "budget.threshold: Input should be a valid integer"),
        ("budget: {threshold: 1.5}\n", "budget.threshold: Input should be a valid integer"),
        (
            "budget: {target: 9000}\n",
            "summem.yaml: budget.target: must be smaller than budget.threshold (8000)",
        ),
        (
            "budget: {target: 8000}\n",
            "summem.yaml: budget.target: must be smaller than budget.threshold (8000)",
        ),
        (
            "budget: {target: 4000, soft_threshold: 3000}\n",
            "budget.soft_threshold: must lie between budget.target (4000) and "
            "budget.threshold (8000)",
        ),
        (
            "budget: {soft_threshold: 9000}\n",
            "budget.soft_threshold: must lie between budget.target (6000)",
        ),
        (  # the summary budget is a default: the target the file set is at fault
            "budget: {target: 500}\n",
            "budget.target: must be larger than budget.summary_max_tokens (512, its default): "
            "set budget.target above 512, or budget.summary_max_tokens below 500",
        ),
        (
            "budget: {target: 500, summary_max_tokens: 600}\n",
            "budget.summary_max_tokens: must be smaller than budget.target (500): set "
            "budget.summary_max_tokens below 500, or budget.target above 600",
        ),
        (
            "budget: {soft_threshold: 7000, hard_limit: 7999}\n",
            "budget.hard_limit: must be at least the threshold (8000), got 7999",
        ),
        ("budget: {keep_last_user_turns: -1}\n", "budget.keep_last_user_turns: Input should be"),
        ("budget: {cut_before_user: maybe}\n", "budget.cut_before_user: Input should be a valid"),
        ("summary: {role: tool}\n", "summary.role: Input should be 'user', 'system'"),
        ("summary: {placement: top}\n", "summary.placement: Input should be 'after_system'"),
        ("summary: {prefix: 3}\n", "summary.prefix: Input should be a valid string"),
        ("model: ''\n", "summem.yaml: model: must not be empty"),
        ("model: 4\n", "summem.yaml: model: Input should be a valid string"),
        ("prompt: no-such-prompt\n", "summem.yaml: prompt: no shipped prompt named"),
        ("prompt: missing/p.yaml\n", "summem.yaml: prompt: prompt file"),
        ("store: mongodb://db/x\n", "store: unknown scheme 'mongodb'; available: memory"),
        ("store: summem.db\n", "store: must be a store URL such as sqlite:///summem.db"),
        ("store: 'redis://:${lower}@h:6379/0'\n", "store: environment references are written"),
        ("retries: {max_attempts: 0}\n", "retries.max_attempts: Input should be greater than 0"),
        ("retries: {initial_backoff: -1}\n", "retries.initial_backoff: Input should be greater"),
        ("retries: {deadline_seconds: 0}\n", "retries.deadline_seconds: Input should be greater"),
        (
            "retries: {initial_backoff: 5, max_backoff: 1}\n",
            "retries.max_backoff: must not be smaller than retries.initial_backoff (5.0)",
        ),
        ("retries: {retry: 3}\n", "retries.retry: unknown key"),
        ("fallback: extractive\n", "summem.yaml: fallback: must be a list"),
        ("fallback: [extractive, 3]\n", "fallback[1]: Input should be a valid string"),
        ("fallback: [' ']\n", "fallback[0]: must be a model name, 'extractive' or 'truncate'"),
        (
            "model: m\nfallback: [extractive, extractive]\n",
            "fallback[1]: 'extractive' is listed twice",
        ),
        (
            "model: m\nfallback: [truncate, extractive]\n",
            "fallback[1]: nothing after 'truncate' ever runs",
        ),
        ("model: m\nfallback: [m]\n", "fallback[0]: 'm' is already the main model"),
        ("fallback: [extractive]\n", "fallback[0]: 'extractive' would only run if the"),
        ("fallback: [truncate, gpt-4o]\n", "fallback[1]: nothing after 'truncate'"),
        ("fallback: [gpt-4o]\n", "with no model set, it is the main summarizer"),
        ("api_key_env: openai_api_key\n", "api_key_env: must be the NAME of an environment"),
        ("api_key_env: [A]\n", "api_key_env: must be an environment variable's name"),
        ("api_key_env: {m: 5}\n", "api_key_env: must be an environment variable's name"),
        (
            "model: m\napi_key_env: {other: KEY}\n",
            "summem.yaml: api_key_env.other: not a model named in model or fallback",
        ),
    ],
)
def test_bad_setting_is_named(text: str, expected: str) -> None:
    assert expected in error_of(text)


def test_every_problem_is_reported_one_per_line() -> None:
    message = error_of("budget: {unit: lines, threshold: 0}\nsummary: {role: tool}\n")
    lines = message.splitlines()
    assert len(lines) == 3 and all(line.startswith("summem.yaml: ") for line in lines)


def test_error_names_the_file_as_given(tmp_path: Path) -> None:
    path = write(tmp_path, "budget: {target: 9000}\n", "conf.yaml")
    with pytest.raises(ConfigurationError, match=rf"^{path}: budget\.target: "):
        load_config(path)


# -- secrets only from the environment ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (f"api_key: {SECRET}\n", "api_key"),
        (f"API-KEY: {SECRET}\n", "API-KEY"),
        (f"openai_api_key: {SECRET}\n", "openai_api_key"),
        ("token: abc\n", "token"),
        ("password: hunter2\n", "password"),
        ("secret: x\n", "secret"),
        (f"retries: {{api_key: {SECRET}}}\n", "retries.api_key"),
        (f"model: {SECRET}\n", "model"),
        (f"model: m\nfallback: [extractive, {SECRET}]\n", "fallback[1]"),
        (f"api_key_env: {SECRET}\n", "api_key_env"),
    ],
)
def test_secrets_in_the_file_are_rejected(text: str, where: str) -> None:
    message = error_of(text)
    assert message.startswith(f"summem.yaml: {where}: ")
    assert "environment variable" in message and "api_key_env" in message
    assert SECRET not in message and "hunter2" not in message


@pytest.mark.parametrize(
    "url",
    [
        "redis://:hunter2@localhost:6379/0",
        "redis://user:hunter2@h/0",
        "redis://h/0?password=hunter2",
    ],
)
def test_store_url_with_a_literal_password_is_rejected(url: str) -> None:
    message = error_of(f"store: '{url}'\n")
    assert "store: holds a literal" in message and "${STORE_PASSWORD}" in message
    assert "hunter2" not in message


def test_store_url_takes_variables_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = parse_config("store: 'sqlite:///${DATA_DIR}/sessions.db'\n")
    with pytest.raises(ConfigurationError, match="store: environment variable DATA_DIR is not set"):
        config.build_store()
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    store = config.build_store()
    assert isinstance(store, SQLiteStore) and (tmp_path / "sessions.db").exists()
    assert "${DATA_DIR}" in "\n".join(config.describe())  # the expanded value is never shown


def test_store_errors_hide_expanded_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hidden = str(tmp_path / "not-a-dir" / "deeper")
    monkeypatch.setenv("DATA_DIR", hidden)
    config = parse_config("store: 'sqlite:///${DATA_DIR}/s.db'\n", source="summem.yaml")
    with pytest.raises(ConfigurationError, match=r"summem\.yaml: store: ") as info:
        config.build_store()
    assert hidden not in str(info.value) and info.value.__cause__ is None


def test_api_key_comes_from_the_named_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    env_key = "sk-from-env-0000000000000000000000"
    monkeypatch.setenv("MY_LLM_KEY", env_key)
    config = parse_config(
        "model: gpt-4o-mini\napi_key_env: MY_LLM_KEY\n"
        "budget: {unit: messages, threshold: 6, target: 4, summary_max_tokens: 60}\n"
    )
    summarizer = config.build_summarizer()
    assert isinstance(summarizer, LLMSummarizer) and env_key not in repr(summarizer)
    reducer = config.build_reducer(summarizer=summarizer, token_counter=WordCounter())
    reply = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o-mini",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Dana, order 7."},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
    }
    turns = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} " * 8}
        for i in range(8)
    ]
    with respx.mock() as router:
        route = router.post("https://api.openai.com/v1/chat/completions").mock(
            return_value=httpx.Response(200, json=reply)
        )
        result = reducer.reduce([{"role": "system", "content": "s"}, *turns])
    assert result.reduced and result.summary is not None and "Dana, order 7." in result.summary.text
    request = route.calls.last.request
    assert request.headers["authorization"] == f"Bearer {env_key}"
    assert json.loads(request.content)["model"] == "gpt-4o-mini"


def test_missing_key_variable_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    config = parse_config("model: gpt-4o-mini\napi_key_env: MY_LLM_KEY\n", source="summem.yaml")
    with pytest.raises(
        ConfigurationError, match=r"summem\.yaml: api_key_env: environment variable MY_LLM_KEY"
    ):
        config.build_summarizer()


def test_per_model_key_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    config = parse_config(
        "model: gpt-4o-mini\nfallback: [anthropic/claude-3-5-haiku-20241022, extractive]\n"
        "api_key_env: {anthropic/claude-3-5-haiku-20241022: CLAUDE_KEY}\n"
    )
    with pytest.raises(ConfigurationError, match=r"api_key_env\.anthropic/claude.*CLAUDE_KEY"):
        config.build_summarizer()
    monkeypatch.setenv("CLAUDE_KEY", "claude-secret-value")
    chain = config.build_summarizer()
    assert isinstance(chain, FallbackSummarizer)
    assert "claude-secret-value" not in repr(chain)


# -- factories ------------------------------------------------------------------------------


def test_build_summarizer_follows_the_fallback_list() -> None:
    config = parse_config("model: gpt-4o-mini\nfallback: [gpt-4.1-nano, extractive, truncate]\n")
    chain = config.build_summarizer()
    assert isinstance(chain, FallbackSummarizer)
    kinds = [type(step) for step in chain.steps]
    assert kinds == [LLMSummarizer, LLMSummarizer, ExtractiveSummarizer, TruncatingSummarizer]
    assert [getattr(s, "model", None) for s in chain.steps[:2]] == ["gpt-4o-mini", "gpt-4.1-nano"]
    offline = parse_config("fallback: [truncate]\n").build_summarizer()
    assert isinstance(offline, FallbackSummarizer)
    assert [type(s) for s in offline.steps] == [ExtractiveSummarizer, TruncatingSummarizer]


def test_llm_summarizer_gets_the_prompt_and_retries(tmp_path: Path) -> None:
    shipped = Path(__file__).resolve().parents[2] / "prompts" / "summarize-brief.yaml"
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "mine.yaml").write_text(shipped.read_text())
    path = write(
        tmp_path,
        "model: gpt-4o-mini\nprompt: prompts/mine.yaml\n"
        "retries: {max_attempts: 2, initial_backoff: 0.1, max_backoff: 1,"
        " retry_after_cap: 5, deadline_seconds: null}\n",
    )
    config = load_config(path)  # the prompt path is relative to the config file
    summarizer = config.build_summarizer()
    assert isinstance(summarizer, LLMSummarizer)
    assert summarizer.prompt.name == "summarize-brief"
    assert summarizer.retry == RetryPolicy(
        max_attempts=2,
        initial_backoff=0.1,
        max_backoff=1.0,
        retry_after_cap=5.0,
        deadline_seconds=None,
    )


@pytest.mark.parametrize("unit", ["tokens", "messages"])
def test_build_reducer_maps_every_setting(unit: str) -> None:
    config = parse_config(
        f"budget: {{unit: {unit}, threshold: 3000, target: 2000, soft_threshold: 2500,"
        " hard_limit: 5000, summary_max_tokens: 300, keep_last_user_turns: 2,"
        " cut_before_user: true}\n"
        "summary: {role: system, placement: system_suffix, prefix: 'Earlier: '}\n"
    )
    reducer = config.build_reducer(token_counter=WordCounter())
    assert isinstance(reducer, SummarizationReducer)
    assert (reducer.unit, reducer.threshold, reducer.target) == (unit, 3000, 2000)
    assert reducer.soft_threshold == 2500 and reducer.summary_max_tokens == 300
    assert reducer.hard_limit == 5000
    assert "turns wait past 5000" in " ".join(config.describe())
    assert reducer.cut_options.keep_last_user_turns == 2 and reducer.cut_options.cut_before_user
    assert (reducer.summary_role, reducer.summary_placement) == ("system", "system_suffix")
    assert reducer.summary_prefix == "Earlier: "
    assert isinstance(reducer.summarizer, ExtractiveSummarizer)


def test_budget_target_defaults_to_three_quarters() -> None:
    assert BudgetConfig(threshold=400).effective_target == 300
    reducer = parse_config("budget: {threshold: 4000}\n").build_reducer(token_counter=WordCounter())
    assert (reducer.threshold, reducer.target) == (4000, 3000)


def test_build_store_default_is_sqlite_in_the_users_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SUMMEM_DATA_DIR", str(tmp_path / "data" / "summem"))
    store = SummemConfig().build_store()
    assert isinstance(store, SQLiteStore)
    store.close()
    assert (tmp_path / "data" / "summem" / "summem.db").exists()  # its folder made on demand
    assert not (tmp_path / "summem.db").exists()  # nothing in the working folder
    assert isinstance(parse_config("store: 'memory://'\n").build_store(), InMemoryStore)


def offline_config() -> SummemConfig:
    return parse_config("store: 'memory://'\nbudget: {unit: messages, threshold: 6, target: 4}\n")


def conversation(n: int) -> list[dict[str, Any]]:
    return [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"Order {100 + i} noted."}
        for i in range(n)
    ]


def test_build_memory_runs_offline_with_the_configured_budget() -> None:
    memory = offline_config().build_memory("s1")
    memory.extend([{"role": "system", "content": "Be brief."}, *conversation(8)])
    memory.reduce()
    view = memory.messages()
    assert len(view) <= 6 and view[0]["content"] == "Be brief."
    assert memory.summary is not None and len(memory.history_messages()) == 8
    memory.close()


def test_build_memory_shares_a_given_store() -> None:
    config = offline_config()
    store = config.build_store()
    a, b = config.build_memory("a", store=store), config.build_memory("b", store=store)
    a.add({"role": "user", "content": "hello"})
    assert store.exists("a") and not store.exists("b") and b.messages() == []


async def test_build_async_memory() -> None:
    memory = offline_config().build_async_memory("s1")
    await memory.extend(conversation(8))
    await memory.reduce()
    assert len(await memory.messages()) <= 6
    await memory.close()


def test_the_view_section_builds_the_style(tmp_path: Path) -> None:
    from summem import ViewStyle

    assert SummemConfig().view.build() is None
    config = load_config(write(tmp_path, "view:\n  style: strict\n  tools_as_text: false\n"))
    assert config.view.build() == ViewStyle(
        alternating=True,
        empty_null_content=True,
        text_content=True,
        developer_as_system=True,
        reply_as_text=True,
    )
    from summem.stores.memory import InMemoryStore

    memory = config.build_memory("v", store=InMemoryStore())
    try:
        assert memory.style == config.view.build()
    finally:
        memory.close()
    assert "view.styel: unknown key" in error_of("view:\n  styel: strict\n")
    # an explicit "reply_as_text: false" is kept: it turns off the litellm wrapper's default
    off = load_config(write(tmp_path, "view:\n  reply_as_text: false\n")).view.build()
    assert off == ViewStyle(reply_as_text=False) and off.is_plain


def test_summary_reuse_cache_reaches_the_primary_summarizer_only() -> None:
    from summem.summarizers.chain import FallbackSummarizer
    from summem.summarizers.llm import LLMSummarizer

    config = SummemConfig.model_validate(
        {"model": "gpt-4o-mini", "fallback": ["gpt-4.1-mini"], "summary": {"reuse_cache": True}}
    )
    chain = config.build_summarizer()
    assert isinstance(chain, FallbackSummarizer)
    primary, fallback = chain.steps[:2]
    assert isinstance(primary, LLMSummarizer) and primary.reuse_cache
    assert isinstance(fallback, LLMSummarizer) and not fallback.reuse_cache  # another model
    assert not SummemConfig().summary.reuse_cache
