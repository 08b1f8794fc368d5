"""Pytest fixtures for LLM tests: respx routers at the providers' URLs, backends, a fake clock.

Requests are intercepted by respx at the httpx transport, so the real openai SDK and the real
litellm code (request building, response parsing, exception mapping) run in every test.
Loaded for the whole suite by ``tests/conftest.py`` (``pytest_plugins``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import respx

from tests.fakes.llm import FakeClock
from tests.fakes.providers import BACKENDS, Backend
from tests.fakes.replies import ANTHROPIC_URL, OPENAI_URL


@pytest.fixture
def litellm_httpx(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """litellm with its async path on httpx (not aiohttp), so respx sees every request.

    ``AsyncHTTPHandler.should_use_aiohttp_transport`` reads ``disable_aiohttp_transport``
    when a client is built; litellm caches clients, so the cache is flushed around the test.
    """
    import litellm

    monkeypatch.setattr(litellm, "disable_aiohttp_transport", True)
    litellm.in_memory_llm_clients_cache.flush_cache()
    yield litellm
    litellm.in_memory_llm_clients_cache.flush_cache()


@pytest.fixture
def router() -> Iterator[respx.MockRouter]:
    """A respx router; any request it has no route for fails the test."""
    with respx.mock(assert_all_mocked=True, assert_all_called=False) as mock:
        yield mock


@pytest.fixture
def mocked_openai_chat(router: respx.MockRouter) -> respx.Route:
    """The route for ``POST https://api.openai.com/v1/chat/completions``."""
    return router.post(OPENAI_URL)


@pytest.fixture
def mocked_anthropic_messages(router: respx.MockRouter) -> respx.Route:
    """The route for ``POST https://api.anthropic.com/v1/messages``."""
    return router.post(ANTHROPIC_URL)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=BACKENDS, ids=[b.name for b in BACKENDS])
def backend(request: pytest.FixtureRequest) -> Backend:
    """Each backend in turn; litellm ones get httpx transport for their async path."""
    selected: Backend = request.param
    if selected.litellm:
        request.getfixturevalue("litellm_httpx")
    return selected


@pytest.fixture
def route(backend: Backend, router: respx.MockRouter) -> respx.Route:
    """The route the current backend's requests go to."""
    return router.post(backend.url)


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    """Which driver runs the flow."""
    value: str = request.param
    return value
