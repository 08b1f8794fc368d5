"""Fakes and builders shared by the tests, one concept per module.

``counters`` (deterministic token counters), ``summarizers`` (fake summarizers and flow steps),
``llm`` (fake LLM clients and a fake clock), ``replies`` (provider payloads and captured
requests), ``providers`` (respx-mocked backends), ``fixtures`` (the pytest fixtures),
``messages`` (chat-completions dict builders) and ``memory`` (a small reducer and the
invariant checks the memory tests share).
"""
