"""Which provider a model name goes to, and which environment variable holds its key.

Answered without importing litellm (which takes seconds) for the common providers, so a
missing key is reported at once; litellm is asked only about the rest.
"""

from __future__ import annotations

__all__ = ["KEY_VARIABLES", "key_variable", "provider_of"]

KEY_VARIABLES: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "azure": "AZURE_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
    "cohere": "COHERE_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "xai": "XAI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "fireworks_ai": "FIREWORKS_AI_API_KEY",
    "perplexity": "PERPLEXITYAI_API_KEY",
}
"""The variable each provider's key is read from (litellm's names)."""

_BARE_PREFIXES: tuple[tuple[str, str], ...] = (
    ("gpt-", "openai"),
    ("chatgpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("claude-", "anthropic"),
    ("gemini-", "gemini"),
    ("mistral-", "mistral"),
    ("command-", "cohere"),
    ("deepseek-", "deepseek"),
    ("grok-", "xai"),
)


def provider_of(model: str) -> str | None:
    """The provider a litellm model name goes to, when that is known without litellm.

    ``"anthropic/claude-3-5-haiku-latest"`` -> ``"anthropic"``; a bare ``"gpt-4o-mini"`` ->
    ``"openai"``; ``None`` for names only litellm can place.
    """
    head, sep, _ = model.partition("/")
    if sep:
        return head.lower() if head.lower() in KEY_VARIABLES else None
    low = model.lower()
    return next((p for prefix, p in _BARE_PREFIXES if low.startswith(prefix)), None)


def key_variable(model: str) -> str | None:
    """The environment variable holding ``model``'s key, when known without litellm."""
    provider = provider_of(model)
    return KEY_VARIABLES.get(provider) if provider is not None else None
