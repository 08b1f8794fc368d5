"""summem as LangChain v1 agent middleware: the model sees a bounded view, the store keeps all.

    from langchain.agents import create_agent
    from summem.integrations.langchain import SummemMiddleware

    agent = create_agent(model, tools=[...], middleware=[SummemMiddleware(Memory("user-42"))])

Before each model call, the request's messages (the agent state's conversation, plus the
system prompt) are followed into the memory (see :mod:`summem.integrations._window`): what is
recorded is recognised by message id and content; a state that goes back to an earlier point
(time travel to a checkpoint, a regenerate, ``update_state`` editing a message, a
``RemoveMessage`` in the middle) **branches** the session there, the rest recorded anew and the
abandoned turns kept as a branch (``memory.branches()``), never sent again; a state whose oldest
messages were removed is a window onto the history (the model is not sent what it dropped). The
model is called with the memory's view: the system message, the summary, the recent turns,
never a tool call without its results. The reply is recorded once the call returns.

By default the agent's state is left as it is (the middleware only changes what the model is
sent). With ``trim_state=True``, after each model call the messages the store holds and the view
no longer shows are removed from the state (``RemoveMessage``), so state and checkpoints stay
bounded; the store keeps them (``memory.history()``).

Messages convert to chat-completions messages and back without loss (:mod:`.messages`:
``from_langchain``, ``to_langchain`` and ``view_messages``, re-exported here): ids, names,
tool calls with their arguments, ``additional_kwargs``, ``response_metadata``, usage,
artifacts and status are kept in the summem message's ``meta`` and given back.
"""

from __future__ import annotations

from summem.integrations._shared import missing

try:  # before the modules below: a missing extra is named, whichever is imported first
    import langchain.agents.middleware  # noqa: F401
    import langchain_core.messages  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised with the package hidden
    raise missing("langchain", "langchain", exc) from exc

from summem.integrations.langchain.messages import (
    META_KEY,
    from_langchain,
    to_langchain,
    view_messages,
)
from summem.integrations.langchain.middleware import SummemMiddleware, pre_model_hook

__all__ = [
    "META_KEY",
    "SummemMiddleware",
    "from_langchain",
    "pre_model_hook",
    "to_langchain",
    "view_messages",
]
