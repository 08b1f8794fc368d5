"""Token counting: the protocol, an exact OpenAI counter (tiktoken), an approximate one.

:mod:`summem.tokens.base` holds the protocol, the approximate and callable counters and
:func:`resolve_counter`; :mod:`summem.tokens.openai` the exact tiktoken counter (imported on
first use: loading an encoding takes time); :mod:`summem.tokens.media` the estimates for
images, audio and files, which are never tokenized as text.
"""

from summem.tokens.base import (
    ApproxCounter,
    CallableCounter,
    TokenCounter,
    TokenCounterFn,
    count_messages,
    resolve_counter,
)

__all__ = [
    "ApproxCounter",
    "CallableCounter",
    "TokenCounter",
    "TokenCounterFn",
    "count_messages",
    "resolve_counter",
]
