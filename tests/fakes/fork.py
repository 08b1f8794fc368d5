"""Run a function in a forked child and get back what it returned (or why it did not)."""

from __future__ import annotations

import os
import select
import threading
from collections.abc import Callable


def in_forked_child(body: Callable[[], str]) -> str:
    """Fork; the child runs ``body`` in a thread and writes its result to a pipe.

    ``"hung"`` if ``body`` did not return within 60 s (a bound for a hang, far above the
    milliseconds it takes), ``"no answer"`` if the child wrote nothing.
    """
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child process
        out: list[str] = []
        t = threading.Thread(target=lambda: out.append(body()), daemon=True)
        t.start()
        t.join(60)
        os.write(write, (out[0] if out else "hung").encode())
        os._exit(0)
    os.close(write)
    ready, _, _ = select.select([read], [], [], 120)
    result = os.read(read, 256).decode() if ready else "no answer"
    os.close(read)
    os.waitpid(pid, 0)
    return result
