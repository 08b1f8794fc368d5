"""One respx router for both HTTP stacks: httpx (openai 2.x, litellm) and httpx2 (openai 3.x).

respx's default mocker patches httpcore's connection pools, where every request of an httpx
client ends up, so it intercepts the openai 2.x SDK and litellm (litellm hands the openai SDK
an ``httpx`` client, on openai 3.x too). openai 3.x's own default client is an ``httpx2`` one,
whose pools are httpcore2's; pytest-httpx2 (by respx's author) defines respx's mocker for those,
named ``"httpcore2"``. :func:`route_httpx2_too` adds its targets to respx's default mocker, so
every ``respx.mock(...)``, ``@respx.mock`` and the ``router`` fixture intercepts both stacks and
the real SDK code (request building, response parsing, exception mapping) runs above the
transport either way. Routes, side effects and recorded calls keep httpx's types: respx turns
an httpcore2 request into an ``httpx.Request`` and the ``httpx.Response`` a route returns back
into the pool's response, as pytest-httpx2's own fixture does.

Installed by ``tests/conftest.py`` for the whole session; a no-op where httpx2 is not installed
(openai 2.x without anything that pulls httpx2 in). :data:`SDK_HTTP` is the library the
installed openai SDK is built on, for tests that build the SDK's exceptions themselves.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

import openai
import pytest_httpx2  # noqa: F401 - defining its mocker registers it with respx
from respx.mocks import HTTPCoreMocker, Mocker

__all__ = ["HTTPX2", "SDK_HTTP", "route_httpx2_too"]

HTTPX2 = importlib.util.find_spec("httpcore2") is not None
"""True when httpx2 (and its httpcore2) is installed, as with openai 3.x."""

SDK_HTTP: ModuleType = importlib.import_module(
    "httpx2" if int(openai.__version__.split(".")[0]) >= 3 else "httpx"
)
"""httpx2 under openai 3.x, httpx under 2.x: whose ``Request`` / ``Response`` the SDK takes."""


def route_httpx2_too() -> None:
    """Make respx's default (httpcore) mocker patch httpcore2's pools as well."""
    if HTTPX2:
        HTTPCoreMocker.add_targets(*Mocker.registry["httpcore2"].targets)
