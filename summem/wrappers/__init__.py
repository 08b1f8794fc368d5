"""Memory around an assistant in two lines: openai clients and litellm's completion functions.

memory = Memory("user-42")
client = wrap_openai(OpenAI(), memory)       # or wrap_completion(litellm.completion, memory)
"""

from summem.wrappers.litellm import wrap_completion
from summem.wrappers.openai import MemoryClient, wrap_openai

__all__ = ["MemoryClient", "wrap_completion", "wrap_openai"]
