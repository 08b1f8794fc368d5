"""One module decides what a secret is and keeps it out of text (I6)."""

from __future__ import annotations

import pytest

from summem._secrets import (
    environment_secrets,
    is_secret_name,
    looks_like_key,
    mask_parameters,
    mask_url,
    redact,
    secret_values,
)


@pytest.mark.parametrize(
    "name",
    [
        "api_key",
        "OPENAI_API_KEY",
        "azure_ad_token",
        "extra_headers",
        "password",
        "apiKey",
        "x-api-key",
    ],
)
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name", ["max_tokens", "summary_max_tokens", "keep_last_user_turns", "OPENAI_API_BASE", "model"]
)
def test_names_that_are_not_secrets(name: str) -> None:
    assert not is_secret_name(name)


def test_key_shaped_values() -> None:
    assert looks_like_key("sk-proj-" + "a" * 24)
    assert looks_like_key("  AIza" + "b" * 30)
    assert not looks_like_key("sk-short")
    assert not looks_like_key("gpt-4o-mini")


def test_redact_known_and_shaped_secrets() -> None:
    text = (
        "key sk-abcdef123456 header Bearer abc.def.ghi api_key=hunter22 plain-secret "
        "max_tokens: 512"
    )
    out = redact(text, ["plain-secret"])
    for secret in ("sk-abcdef123456", "abc.def.ghi", "hunter22", "plain-secret"):
        assert secret not in out
    assert out.count("[REDACTED]") == 4
    assert "max_tokens: 512" in out


def test_masking_parameters_urls_and_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    params = {"api_key": "k-123", "temperature": 0, "extra_headers": {"Authorization": "Bearer x"}}
    assert mask_parameters(params) == {
        "api_key": "***",
        "temperature": 0,
        "extra_headers": "***",
    }
    assert sorted(secret_values(params)) == ["Bearer x", "k-123"]
    assert mask_url("redis://user:pa55@host:6379/0") == "redis://user:***@host:6379/0"
    assert mask_url("sqlite:///x.db") == "sqlite:///x.db"
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-0123456789")
    monkeypatch.setenv("MY_SERVICE_URL", "https://example.invalid/abcdefgh")
    found = environment_secrets()
    assert "tok-0123456789" in found and "https://example.invalid/abcdefgh" not in found


def test_a_secret_in_a_url_s_query_is_found_masked_and_redacted() -> None:
    """Gateways take keys as query parameters, and HTTP clients log whole URLs (I6)."""
    from summem._secrets import mask_parameters, redact, secret_values, url_secrets
    from summem.clients.litellm import LiteLLMClient

    url = "https://gw.example/v1?api-version=2024&subscription-key=qk-123456789&sig=s1gn4ture"
    assert url_secrets(url) == ["qk-123456789", "s1gn4ture"]
    assert secret_values({"api_base": url}) == ["qk-123456789", "s1gn4ture"]
    text = redact(f'HTTP Request: POST {url} "HTTP/1.1 401"')
    assert "qk-123456789" not in text and "s1gn4ture" not in text and "api-version=2024" in text
    shown = mask_parameters({"api_base": url, "model": "m"})
    assert "qk-123456789" not in str(shown) and shown["model"] == "m"
    assert "qk-123456789" not in repr(LiteLLMClient(api_base=url))
