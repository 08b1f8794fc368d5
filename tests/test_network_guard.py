import socket

import pytest

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
