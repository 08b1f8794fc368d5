"""Says, visibly, when the SDK's session tests cannot run here (the SDK is not installed)."""

from __future__ import annotations

import pytest


def test_the_agents_sdk_is_installed() -> None:
    pytest.importorskip(
        "agents",
        reason="the OpenAI Agents SDK (summem[agents], openai>=3) is not installed: "
        "tests/conformance/agents/test_session.py is not run",
    )
