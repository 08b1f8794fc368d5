"""Mapping SDK exceptions to summem's, Retry-After parsing, and redaction."""

from __future__ import annotations

import email.utils
from typing import Any

import openai
import pytest

from summem._secrets import redact
from summem.clients.errors import map_provider_error, parse_retry_after
from summem.errors import (
    ContextWindowExceededError,
    LLMAuthenticationError,
    LLMError,
    LLMTransientError,
)
from tests.fakes.transport import SDK_HTTP

REQ = SDK_HTTP.Request("POST", "https://api.openai.com/v1/chat/completions")


def status_error(
    status: int, body: dict[str, Any] | None = None, headers: dict[str, str] | None = None
):
    response = SDK_HTTP.Response(status, json=body or {}, headers=headers, request=REQ)
    cls = {
        400: openai.BadRequestError,
        401: openai.AuthenticationError,
        404: openai.NotFoundError,
        409: openai.ConflictError,
        429: openai.RateLimitError,
    }.get(status, openai.InternalServerError if status >= 500 else openai.APIStatusError)
    err = (body or {}).get("error")
    return cls(f"Error code: {status} - {body}", response=response, body=err)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "2"}, 2.0),
        ({"Retry-After": "1.5"}, 1.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "-3"}, 0.0),
        ({"retry-after": "soon"}, None),
        ({}, None),
        (None, None),
    ],
)
def test_parse_retry_after(headers, expected):
    assert parse_retry_after(headers) == expected


def test_parse_retry_after_http_date():
    now = 1_700_000_000.0
    header = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after({"retry-after": header}, now=now) == pytest.approx(30.0)


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 529])
def test_transient_statuses(status):
    err = map_provider_error(
        status_error(status, {"error": {"message": "try later"}}, {"retry-after": "4"}),
        provider="openai",
        model="gpt-4o-mini",
    )
    assert isinstance(err, LLMTransientError)
    assert err.status_code == status
    assert err.retry_after == 4.0
    assert "openai" in str(err) and "gpt-4o-mini" in str(err) and "try later" in str(err)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_are_not_transient(status):
    err = map_provider_error(status_error(status), provider="openai", model="m")
    expected = LLMAuthenticationError if status in (401, 403) else LLMError
    assert type(err) is expected
    assert err.status_code == status
    assert "not retried" in str(err)


@pytest.mark.parametrize(
    "text",
    [
        "OpenAIException - Missing credentials. Please pass an `api_key`",
        "The api_key client option must be set either by passing api_key to the client",
        "Incorrect API key provided: sk-abc***",
    ],
)
def test_a_missing_or_refused_key_is_an_auth_error_whatever_the_status(text):
    err = map_provider_error(
        status_error(500, {"error": {"message": text}}), provider="openai", model="m"
    )
    assert type(err) is LLMAuthenticationError
    assert "OPENAI_API_KEY" in str(err) and "not retried" in str(err)
    assert "HTTP 500" not in str(err)  # litellm's status for a key it never sent


def test_exhausted_quota_is_not_retried():
    body = {"error": {"message": "You exceeded your current quota", "code": "insufficient_quota"}}
    err = map_provider_error(status_error(429, body), provider="openai", model="m")
    assert type(err) is LLMError


@pytest.mark.parametrize(
    "body",
    [
        {"error": {"message": "too long", "code": "context_length_exceeded"}},
        {"error": {"message": "This model's maximum context length is 8192 tokens"}},
        {"error": {"message": "prompt is too long: 210000 tokens > 200000 maximum"}},
    ],
)
def test_context_window_errors(body):
    err = map_provider_error(status_error(400, body), provider="openai", model="m")
    assert isinstance(err, ContextWindowExceededError)


def test_timeouts_and_connection_errors_are_transient():
    timeout = map_provider_error(openai.APITimeoutError(request=REQ), provider="p", model="m")
    conn = map_provider_error(openai.APIConnectionError(request=REQ), provider="p", model="m")
    assert isinstance(timeout, LLMTransientError) and "timed out" in str(timeout)
    assert isinstance(conn, LLMTransientError) and "connection" in str(conn)


def test_a_connection_error_wrapped_as_an_http_500_says_so() -> None:
    """litellm reports "no answer" as an InternalServerError: not a reply of the server's."""
    wrapped = status_error(500, {"error": {"message": "OpenAIException - Connection error."}})
    err = map_provider_error(wrapped, provider="openai", model="m")
    assert isinstance(err, LLMTransientError)
    assert "connection failed" in str(err) and "HTTP 500" not in str(err)
    chained = status_error(500, {"error": {"message": "upstream"}})
    chained.__cause__ = ConnectionRefusedError(111, "Connection refused")
    assert "connection failed" in str(map_provider_error(chained, provider="p", model="m"))
    plain = map_provider_error(status_error(500), provider="p", model="m")
    assert "HTTP 500" in str(plain) and "connection" not in str(plain)


def test_keys_are_scrubbed_from_the_message_and_the_sdk_exception():
    key = "sk-proj-abcdefghijklmnop"
    sdk = status_error(401, {"error": {"message": f"Incorrect API key provided: {key}"}})
    sdk.__context__ = ValueError(f"inner {key}")
    err = map_provider_error(sdk, provider="openai", model="m", secrets=[key])
    assert key not in str(err)
    assert key not in str(sdk)
    assert key not in str(sdk.__context__)
    assert "[REDACTED]" in str(err)


@pytest.mark.parametrize(
    "text",
    [
        "key sk-SECRETSECRET123 leaked",
        "Authorization: Bearer abcdefghijkl",
        "api_key='my-own-secret-value'",
        "x-api-key: topsecretvalue",
    ],
)
def test_redact_patterns(text):
    cleaned = redact(text)
    assert "[REDACTED]" in cleaned
    for secret in ("SECRETSECRET123", "abcdefghijkl", "my-own-secret-value", "topsecretvalue"):
        assert secret not in cleaned


def test_redact_known_secrets_and_leaves_text_alone():
    assert redact("hello plain-token-xyz", ["plain-token-xyz"]) == "hello [REDACTED]"
    assert redact("nothing to hide here") == "nothing to hide here"
