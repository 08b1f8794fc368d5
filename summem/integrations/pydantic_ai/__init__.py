"""summem in pydantic-ai: a capability (and a history processor) bounding what the model sees.

    from pydantic_ai import Agent
    from summem.integrations.pydantic_ai import SummemHistory

    agent = Agent(model, capabilities=[SummemHistory(Memory("user-42"))])

Before each model request, the run's messages (its ``message_history`` and what the run
added) are followed into the memory (see :mod:`summem.integrations._window`): what is recorded
is recognised by pydantic-ai's own form of each message (timestamps included); a history that
goes back to an earlier point (a regenerate from ``message_history=result.all_messages()[:k]``,
an edited message) **branches** the session there, the abandoned turns kept as a branch
(``memory.branches()``), never sent again; a run given no history continues the memory's
conversation, the memory supplying the past (``resume=False``, ``memory.branch(0)`` or a new
session id start a new one); a history whose
oldest messages a processor dropped is a window onto the recorded one, and the model is not
sent what it dropped. The model is sent the memory's view: the system prompt, the summary (a
user-prompt request of its own), the recent turns, never a tool call without its results.
Each response is recorded when the next request brings it back, and the last one when the run
ends. The run's own history is left whole (``result.all_messages()``), and the store holds all
of it too.

``SummemHistory.processor()`` gives the same as a plain history processor, for
``ProcessHistory(...)``; pydantic-ai then replaces the run's history with the view (the summary
request coming back is summem's own and is left out), and a response is recorded when the next
request brings it back.

Provider compaction: pydantic-ai's ``OpenAICompaction`` in its stateful mode and
``AnthropicCompaction`` compact server-side; the response carrying the ``CompactionPart`` is
recorded whole and given back as it came, and summem writes the readable twin of what it stands
for. A capability that replaces the run's messages itself (``OpenAICompaction`` in its stateless
mode, a summary in a request as Pydantic AI Harness's ``SummarizingCompaction`` writes) is
refused with a ``ConfigurationError``: with summem, delegate instead
(:class:`summem.summarizers.OpenAICompaction`, :class:`~summem.summarizers.AnthropicCompaction`),
whose item or block pydantic-ai is sent as that provider's ``CompactionPart``, after the twin
(which that provider drops and every other model reads).

Messages convert to chat-completions messages and back without loss: each request part becomes
one message (consecutive system prompt parts one system message; parts with no chat form, such
as instruction deltas, ride along with a neighbour), each response one assistant message with
its tool calls; pydantic-ai's own serialisation of the parts is kept in the message's ``meta``
(never sent to a provider) and given back.
"""

from __future__ import annotations

from summem.integrations._shared import missing

try:  # before the modules below: a missing extra is named, whichever is imported first
    import pydantic_ai.capabilities
    import pydantic_ai.messages  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised with the package hidden
    raise missing("pydantic-ai", "pydantic-ai", exc) from exc

from summem.integrations.pydantic_ai.history import SummemHistory
from summem.integrations.pydantic_ai.messages import (
    META_KEY,
    SUMMARY_KEY,
    from_pydantic_ai,
    to_pydantic_ai,
)

__all__ = ["META_KEY", "SUMMARY_KEY", "SummemHistory", "from_pydantic_ai", "to_pydantic_ai"]
