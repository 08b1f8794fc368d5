"""summem inside agent frameworks, each an optional extra imported only when asked for.

- :mod:`summem.integrations.langchain`: ``SummemMiddleware`` for LangChain v1's
  ``create_agent``, and ``pre_model_hook`` for LangGraph's ``create_react_agent``
  (``pip install 'summem[langchain]'``).
- :mod:`summem.integrations.pydantic_ai`: ``SummemHistory`` / ``AsyncSummemHistory``, history
  processors for pydantic-ai's ``ProcessHistory`` capability
  (``pip install 'summem[pydantic-ai]'``).
- :mod:`summem.integrations.agents`: ``SummemSession``, the OpenAI Agents SDK's ``Session``
  protocol (``pip install 'summem[agents]'``).

Each one records the framework's whole conversation in a summem memory (the store keeps all of
it) and hands the model the memory's bounded view, converted back to the framework's own
message types without loss. LangChain and pydantic-ai hand over their conversation whole on
each call: :mod:`summem.integrations._window` follows it, and a conversation that went back or
changed (time travel, a regenerate, an edit) branches the session instead of being recorded
twice.
"""

__all__: list[str] = []
