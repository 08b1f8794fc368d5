import json
import socket
from typing import Any

import httpx
import pytest
import respx
from respx.models import AllMockedAssertionError

from tests.conftest import NetworkBlockedError


def test_outbound_connection_is_refused() -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        with pytest.raises(NetworkBlockedError):
            s.connect(("93.184.216.34", 443))
    finally:
        s.close()


def test_dns_lookup_is_refused() -> None:
    with pytest.raises(NetworkBlockedError):
        socket.getaddrinfo("api.openai.com", 443)


def test_environment_is_clean(monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import tempfile

    assert not [k for k in os.environ if k.startswith("OPENAI_")]
    # the only summem variable is the one the suite sets: a temporary data folder
    assert [k for k in os.environ if k.startswith("SUMMEM_")] == ["SUMMEM_DATA_DIR"]
    assert os.environ["SUMMEM_DATA_DIR"].startswith(tempfile.gettempdir())


# openai 3.x sends through httpx2 (its own httpcore2 pools, not httpx's): the guard must catch
# its requests too, and respx's routers must intercept them (tests/fakes/transport.py).


def _httpx2() -> Any:
    return pytest.importorskip("httpx2", reason="openai 3.x's HTTP stack, absent with openai 2.x")


def test_unmocked_httpx2_request_is_refused() -> None:
    httpx2 = _httpx2()
    with httpx2.Client() as client, pytest.raises(NetworkBlockedError):
        client.get("https://api.openai.com/v1/models")


async def test_unmocked_async_httpx2_request_is_refused() -> None:
    httpx2 = _httpx2()
    async with httpx2.AsyncClient() as client:
        with pytest.raises(NetworkBlockedError):
            await client.get("https://api.openai.com/v1/models")


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_unmocked_openai_sdk_request_is_refused(mode: str) -> None:
    # whichever stack this openai release uses (httpx for 2.x, httpx2 for 3.x)
    import openai

    kwargs: dict[str, Any] = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": ""}]}
    with pytest.raises((openai.APIConnectionError, NetworkBlockedError)) as caught:
        if mode == "sync":
            openai.OpenAI(api_key="sk-test", max_retries=0).chat.completions.create(**kwargs)
        else:
            client = openai.AsyncOpenAI(api_key="sk-test", max_retries=0)
            await client.chat.completions.create(**kwargs)
    chain: list[BaseException] = []
    current: BaseException | None = caught.value
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    assert any(isinstance(e, NetworkBlockedError) for e in chain), chain


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_respx_router_intercepts_httpx2(router: respx.MockRouter, mode: str) -> None:
    httpx2 = _httpx2()
    route = router.post("https://api.openai.com/v1/echo").mock(
        side_effect=lambda request: httpx.Response(201, json={"got": json.loads(request.content)})
    )
    if mode == "sync":
        with httpx2.Client() as client:
            reply = client.post("https://api.openai.com/v1/echo", json={"n": 1})
    else:
        async with httpx2.AsyncClient() as aclient:
            reply = await aclient.post("https://api.openai.com/v1/echo", json={"n": 1})
    assert isinstance(reply, httpx2.Response)
    assert (reply.status_code, reply.json()) == (201, {"got": {"n": 1}})
    assert route.call_count == 1
    assert str(route.calls.last.request.url) == "https://api.openai.com/v1/echo"


def test_respx_router_refuses_an_unrouted_httpx2_request(router: respx.MockRouter) -> None:
    httpx2 = _httpx2()
    with httpx2.Client() as client, pytest.raises(AllMockedAssertionError):
        client.get("https://api.openai.com/v1/unrouted")
