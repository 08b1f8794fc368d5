"""Keys never reach a log line, a third party's included; errors carry no personal data."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from summem.logs import RedactingFilter, install_log_redaction, redact_record

KEY = "sk-proj-abcdefghijklmnopqrstuvwx"


def record(msg: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord("httpcore.http11", logging.DEBUG, __file__, 1, msg, args, None)


def test_a_record_is_redacted_with_its_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "plain-token-value-123")
    rec = redact_record(record("send headers %s", [(b"authorization", f"Bearer {KEY}")]))
    assert KEY not in rec.getMessage() and "[REDACTED]" in rec.getMessage()
    rec = redact_record(record("token=%s", "plain-token-value-123"))
    assert "plain-token-value-123" not in rec.getMessage()
    untouched = record("count %d", 3)
    assert redact_record(untouched).getMessage() == "count 3"


def test_the_filter_and_the_installed_factory_redact_every_logger(
    caplog: pytest.LogCaptureFixture,
) -> None:
    handler_filter = RedactingFilter()
    rec = record("api_key=%s", KEY)
    assert handler_filter.filter(rec) and KEY not in rec.getMessage()
    previous = logging.getLogRecordFactory()
    try:
        install_log_redaction()
        install_log_redaction()  # idempotent
        with caplog.at_level(logging.DEBUG, logger="LiteLLM"):
            logging.getLogger("LiteLLM").debug(
                "POST with headers {'Authorization': 'Bearer %s'}", KEY
            )
        assert caplog.records and KEY not in caplog.text
    finally:
        logging.setLogRecordFactory(previous)
        import summem.logs

        summem.logs._installed = False


def test_a_provider_error_quoting_the_request_carries_no_card_or_prompt_at_length() -> None:
    import openai

    from summem.clients.errors import map_provider_error
    from tests.fakes.transport import SDK_HTTP

    quoted = "Invalid 'messages[2].content': 'my card is 4111 1111 1111 1111 " + "x" * 500 + "'"
    request = SDK_HTTP.Request("POST", "https://api.openai.com/v1/x")
    response = SDK_HTTP.Response(400, request=request)
    exc = openai.BadRequestError(quoted, response=response, body={"message": quoted})
    err = map_provider_error(exc, provider="openai", model="m")
    assert "4111 1111 1111 1111" not in str(err)
    assert len(str(err)) < 400


def test_a_traceback_on_a_record_is_redacted_too() -> None:
    try:
        raise ValueError(f"refused key {KEY}")
    except ValueError:
        import sys

        rec = logging.LogRecord(
            "LiteLLM", logging.ERROR, __file__, 1, "call failed", (), sys.exc_info()
        )
    redact_record(rec)
    handler_output = logging.Formatter().format(rec)
    assert "call failed" in handler_output and "ValueError" in handler_output
    assert KEY not in handler_output


def passes(f: Any, rec: logging.LogRecord) -> bool:
    return bool(f.filter(rec) if hasattr(f, "filter") else f(rec))


def test_redacted_logs_is_scoped_nested_and_leaves_the_loggers_as_it_found_them() -> None:
    from summem.logs import redacted_logs

    logger = logging.getLogger("httpcore2.http11")
    before = list(logger.filters)
    rec = record("send %s", "call-secret-value")
    with redacted_logs(["call-secret-value"]):
        with redacted_logs(["other-secret-value"]):
            assert len(logger.filters) == len(before) + 1  # one filter, however many calls
            inner = record("send %s %s", "call-secret-value", "other-secret-value")
            assert all(passes(f, inner) for f in logger.filters)
            assert "secret-value" not in inner.getMessage()
        assert all(passes(f, rec) for f in logger.filters)
        assert "call-secret-value" not in rec.getMessage()
        late = logging.getLogger("httpx2.late_module")  # a logger made during a call...
        with redacted_logs():
            assert any(type(f).__name__ == "_CallRedaction" for f in late.filters)  # ...too
    assert logger.filters == before and not late.filters


@pytest.mark.parametrize("name", ["LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm.utils"])
def test_redacted_logs_filters_each_of_litellms_loggers(name: str) -> None:
    """litellm logs under "LiteLLM", "LiteLLM Router" and "LiteLLM Proxy" (a space, not a dot)."""
    from summem.logs import redacted_logs

    logger = logging.getLogger(name)
    with redacted_logs(["router-secret-value"]):
        rec = logging.LogRecord(
            name, logging.DEBUG, __file__, 1, "key %s", ("router-secret-value",), None
        )
        assert all(passes(f, rec) for f in logger.filters)
        assert "router-secret-value" not in rec.getMessage()
    assert not [f for f in logger.filters if type(f).__name__ == "_CallRedaction"]
