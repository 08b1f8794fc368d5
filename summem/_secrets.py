"""Secrets: the one place that decides what is one, and how it is kept out of text (I6).

Every module that might show a key asks here: exceptions and log lines (:func:`redact`), the
parameters of a request shown in a repr (:func:`mask_parameters`), the values to scrub from a
provider's error (:func:`secret_values`), config files that must not hold keys
(:func:`is_secret_name`, :func:`looks_like_key`), URLs echoed to the user (:func:`mask_url`),
and the environment's own keys in CLI output (:func:`environment_secrets`).

Two markers: a value shown in place of a whole secret is ``***``; a secret found inside free
text is replaced by ``[REDACTED]``. Personal data that an error may quote (card numbers, e-mail
addresses, phone numbers) is masked by :func:`redact_pii`, for errors, logs and, when an
application asks, the transcript a summarizer reads.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

__all__ = [
    "MASK",
    "REDACTED",
    "client_secrets",
    "environment_secrets",
    "is_secret_name",
    "looks_like_key",
    "mask_parameters",
    "mask_url",
    "redact",
    "redact_pii",
    "secret_values",
    "url_secrets",
]

MASK = "***"
"""Shown instead of a whole secret value (a parameter, a URL's password)."""
REDACTED = "[REDACTED]"
"""Put in place of a secret found inside text."""

_SECRET_WORDS = frozenset(
    (
        "key",
        "apikey",
        "secret",
        "password",
        "passwd",
        "authorization",
        "auth",
        "credential",
        "credentials",
        "token",
        "headers",
    )
)
_WORD_SPLIT = re.compile(r"[^a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")

# Key shapes providers use: sk-..., sk-proj-..., sk-ant-..., rk-/pk-, Stripe-style sk_live_,
# Google AIza..., xai-, Groq gsk_, Hugging Face hf_, Replicate r8_, Perplexity pplx-, GitHub
# ghp_/github_pat_, GitLab glpat-.
_KEY_PREFIX = (
    r"(?:sk|rk|pk)-|sk_live_|sk_test_|rk_live_|AIza|xai-|gsk_|hf_|r8_|pplx-|ghp_|github_pat_|glpat-"
)
# A URL's query parameter named like a secret (``?key=``, ``&subscription-key=``, ``&sig=``):
# gateways and some providers take the key there, and HTTP clients log whole URLs.
_QUERY_SECRET = re.compile(
    r"(?i)([?&](?:[\w.~-]*(?:key|token|secret|password|passwd|signature|credential)[\w.~-]*"
    r"|sig)=)[^&\s\"'#]+"
)
_TEXT_PATTERNS = (
    _QUERY_SECRET,
    re.compile(rf"\b(?:{_KEY_PREFIX})[A-Za-z0-9_\-]{{6,}}"),
    re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=\-]{6,}"),
    re.compile(
        r"(?i)\b((?:api[_-]?key|x-api-key|access[_-]?token|auth[_-]?token|token|authorization|password)"
        r"[\"']?\s*[:=]\s*[\"']?(?:bearer\s+)?)[^\s\"',}]{4,}"
    ),
)
_WHOLE_KEY = re.compile(rf"^(?:{_KEY_PREFIX})[A-Za-z0-9_\-]{{16,}}$")
_URL_PASSWORD = re.compile(r"(://[^:/@\s]*:)[^@/\s]+@")


def is_secret_name(name: str) -> bool:
    """True when a parameter, setting or environment variable of this name holds a secret.

    ``api_key``, ``OPENAI_API_KEY``, ``azure_ad_token``, ``extra_headers``, ``password``...;
    ``max_tokens`` is a count, not a credential.
    """
    words = _WORD_SPLIT.split(_CAMEL.sub("_", name).lower())
    return any(word in _SECRET_WORDS for word in words)


def looks_like_key(value: str) -> bool:
    """True when ``value`` as a whole is shaped like a provider's API key."""
    return bool(_WHOLE_KEY.match(value.strip()))


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every known secret and every key-shaped token replaced by ``[REDACTED]``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    for pattern in _TEXT_PATTERNS:
        text = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + REDACTED, text)
    return text


def mask_parameters(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``parameters`` safe to show: values of secret-looking names become ``***``.

    A URL's password and secret-named query parameters (``?subscription-key=``) are masked too.
    """
    return {k: MASK if v and is_secret_name(k) else _mask_in_url(v) for k, v in parameters.items()}


def _mask_in_url(value: Any) -> Any:
    if not isinstance(value, str) or "://" not in value:
        return value
    return _QUERY_SECRET.sub(lambda m: m.group(1) + MASK, mask_url(value))


def url_secrets(url: str) -> list[str]:
    """A URL's password and the values of its secret-named query parameters."""
    try:
        parts = urlsplit(url)
        found = [parts.password] if parts.password else []
        pairs = parse_qsl(parts.query, keep_blank_values=False)
    except ValueError:  # not a URL after all
        return []
    return found + [v for k, v in pairs if v and (is_secret_name(k) or k.lower() == "sig")]


def secret_values(parameters: Mapping[str, Any]) -> list[str]:
    """String values of secret-looking parameters (``api_key``, headers...), to scrub from text."""
    found: list[str] = []
    for name, value in parameters.items():
        if isinstance(value, Mapping):
            found.extend(secret_values(value))
        elif isinstance(value, str) and value and is_secret_name(name):
            found.append(value)
        elif isinstance(value, str) and "://" in value:
            found.extend(url_secrets(value))
    return found


def client_secrets(client: Any, parameters: Mapping[str, Any] | None = None) -> list[str]:
    """What a call through an openai-style ``client`` with ``parameters`` must never show.

    The client's key, its secret headers and query parameters, its base URL's, and the
    secrets among the call's own ``parameters`` (``extra_headers``...).
    """
    found = [str(client.api_key)] if isinstance(getattr(client, "api_key", None), str) else []
    own = {
        "headers": dict(getattr(client, "default_headers", None) or {}),
        "query": dict(getattr(client, "default_query", None) or {}),
        "base_url": str(getattr(client, "base_url", "") or ""),
    }
    return found + secret_values(own) + secret_values(parameters or {})


def mask_url(url: str) -> str:
    """``url`` with any password replaced by ``***`` (a URL may be echoed; a secret never)."""
    return _URL_PASSWORD.sub(rf"\1{MASK}@", url)


def environment_secrets() -> list[str]:
    """The values of the environment's secret-named variables (``*_API_KEY``, ``*_TOKEN``...)."""
    return [v for k, v in os.environ.items() if len(v) >= 8 and is_secret_name(k)]


_EMAIL = re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b")
_CARD = re.compile(r"\b(?:\d[ -]?){12,18}\d\b")
_PHONE = re.compile(r"(?<![\w+])\+?\d{1,3}?[ .-]?\(?\d{2,4}\)?(?:[ .-]?\d{2,4}){2,4}(?!\w)")


def _luhn(digits: str) -> bool:
    total, double = 0, False
    for ch in reversed(digits):
        n = int(ch)
        if double:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
        double = not double
    return total % 10 == 0


def _card(match: re.Match[str]) -> str:
    digits = re.sub(r"\D", "", match.group(0))
    return "[card]" if 13 <= len(digits) <= 19 and _luhn(digits) else match.group(0)


_DATE = re.compile(r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}")


def _phone(match: re.Match[str]) -> str:
    found = match.group(0)
    digits = re.sub(r"\D", "", found)
    if _DATE.fullmatch(found.strip()):
        return found
    international = found.lstrip().startswith("+")
    return "[phone]" if (9 if not international else 8) <= len(digits) <= 15 else found


def redact_pii(text: str) -> str:
    """``text`` with card numbers (Luhn-valid), e-mail addresses and phone numbers masked."""
    text = _EMAIL.sub("[email]", text)
    text = _CARD.sub(_card, text)
    return _PHONE.sub(_phone, text)
