"""Exact token counts for OpenAI models, offline.

Budgets are only as good as the counts behind them, so OpenAI models are counted with their own
tiktoken encoding and OpenAI's published message overhead (the cookbook's
``num_tokens_from_messages``). The encodings are loaded without any download: litellm's wheel
(a core dependency) ships the tiktoken BPE files, named as tiktoken's cache names them (the sha1
of the download URL); tiktoken's own cache directories are searched as well. litellm is located
with ``importlib.util.find_spec``, never imported (that takes seconds). Each encoding is loaded
once per process (about 0.3 s for ``o200k_base``), shared between threads, and shared with
tiktoken itself (``tiktoken.get_encoding`` returns the same object), so its ~30 MB of ranks
exist once. A message's texts are tokenized once each (see
:meth:`TiktokenCounter.count_message`).

This module is private: :func:`summem.tokens.base.resolve_counter` picks it for OpenAI model names.
"""

from __future__ import annotations

import binascii
import importlib.util
import os
import re
import threading
import types
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from summem.errors import ConfigurationError
from summem.messages import Message
from summem.tokens.media import (
    DEFAULT_IMAGE_SIZE,
    audio_tokens,
    file_tokens,
    image_tokens,
    image_url_tokens,
)
from summem.tokens.provider import OPAQUE_KEY, opaque_size, provider_texts

if TYPE_CHECKING:
    from pathlib import Path

    import tiktoken

__all__ = [
    "TOOL_CALL_TOKENS",
    "Encoder",
    "TiktokenCounter",
    "encoding_dirs",
    "encoding_name_for_model",
    "load_encoding",
]

TOOL_CALL_TOKENS = 8
"""Tokens added per tool call on top of its function name and arguments.

OpenAI does not publish how tool calls are rendered for the model; the figure stands for the
recipient (``functions.<name>``) and the framing around the JSON arguments, as in the harmony
format OpenAI published for its open-weight models. Counts of assistant messages with tool calls
are therefore close estimates, not exact.
"""

O200K = "o200k_base"
CL100K = "cl100k_base"

# Bare model name prefixes, most specific first ("gpt-4o" before "gpt-4").
_MODEL_PREFIXES: tuple[tuple[str, str], ...] = (
    ("gpt-4o", O200K),
    ("chatgpt-4o", O200K),
    ("gpt-4.1", O200K),
    ("gpt-4.5", O200K),
    ("gpt-5", O200K),
    ("o1", O200K),
    ("o3", O200K),
    ("o4", O200K),
    ("gpt-4", CL100K),
    ("gpt-3.5", CL100K),
    ("gpt-35", CL100K),  # Azure's spelling
    ("text-embedding-3", CL100K),
    ("text-embedding-ada-002", CL100K),
)
_O_SERIES = re.compile(r"o\d(?:$|-)")  # o1, o3-mini, o4-mini-2025-04-16, not "o1x"
_BASE64_BLOB = re.compile(r"[A-Za-z0-9+/]{256,}={0,2}")


def encoding_name_for_model(model: str) -> str | None:
    """The tiktoken encoding of an OpenAI model, or None for a model of another provider.

    Provider prefixes (``openai/``, ``azure/``, ``openrouter/openai/``) and fine-tune names
    (``ft:gpt-4o-mini:org::id``) are understood.
    """
    name = model.strip().lower().rsplit("/", 1)[-1]
    if name.startswith("ft:"):
        name = name[3:].split(":", 1)[0]
    for prefix, encoding in _MODEL_PREFIXES:
        if name.startswith(prefix):
            if prefix[0] == "o" and not _O_SERIES.match(name):
                continue
            return encoding
    return None


def _is_legacy_0301(model: str) -> bool:
    """gpt-3.5-turbo-0301 framed messages differently: 4 tokens each, a name replaced the role."""
    name = model.lower().rsplit("/", 1)[-1]
    return name.startswith(("gpt-3.5-turbo-0301", "gpt-35-turbo-0301"))


# -- loading encodings ----------------------------------------------------------------------

_LOCK = threading.Lock()
_ENCODINGS: dict[str, tiktoken.Encoding] = {}
_ENCODING_FILES = frozenset((O200K, CL100K))
"""Encodings a counter may load on first use: their names are known without loading them."""


def encoding_dirs() -> list[Path]:
    """Folders searched for tiktoken BPE files, in order: litellm's, then tiktoken's caches."""
    from pathlib import Path  # here: pathlib (and urllib, ipaddress) only for the encoding

    dirs: list[Path] = []
    spec = importlib.util.find_spec("litellm")  # finds the package without importing it
    if spec is not None and spec.origin:
        dirs.append(Path(spec.origin).parent / "litellm_core_utils" / "tokenizers")
    for var in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if os.environ.get(var):
            dirs.append(Path(os.environ[var]))
    import tempfile  # here: it imports shutil and the compression modules

    dirs.append(Path(tempfile.gettempdir()) / "data-gym-cache")
    return dirs


def load_encoding(name: str) -> tiktoken.Encoding:
    """The tiktoken encoding ``name`` (``o200k_base``, ``cl100k_base``...), loaded offline once.

    Raises:
        ConfigurationError: the encoding is unknown, or its file is in none of
            :func:`encoding_dirs` (the message lists where it looked).
    """
    encoding = _ENCODINGS.get(name)
    if encoding is None:
        with _LOCK:
            encoding = _ENCODINGS.get(name)
            if encoding is None:
                encoding = _shared_encoding(name)
                _ENCODINGS[name] = encoding
    return encoding


def _shared_encoding(name: str) -> tiktoken.Encoding:
    """Tiktoken's own Encoding for ``name`` when it has one, else ours, shared with tiktoken.

    An encoding's ranks take about 30 MB: ``tiktoken.get_encoding`` (litellm and others call
    it) and summem must not each build a copy. One tiktoken already built is reused; one
    built here (offline) is put in tiktoken's registry, where ``get_encoding`` finds it.
    """
    import tiktoken.registry as registry

    lock = getattr(registry, "_lock", None)
    shared: dict[str, tiktoken.Encoding] | None = getattr(registry, "ENCODINGS", None)
    if lock is None or not isinstance(shared, dict):  # another tiktoken layout: keep ours
        return _build_encoding(name)
    found = shared.get(name)
    if found is not None:
        return found
    built = _build_encoding(name)
    with lock:
        return shared.setdefault(name, built)


def _build_encoding(name: str) -> tiktoken.Encoding:
    """Run tiktoken's own constructor for ``name`` with a loader that reads local files only.

    The constructors in ``tiktoken_ext.openai_public`` hold each encoding's regex and special
    tokens; they fetch the ranks through the module-global ``load_tiktoken_bpe``. Copies of them
    bound to a private namespace call our offline loader instead: no global state (environment,
    module attributes) is touched, so concurrent tiktoken users are unaffected.
    """
    import tiktoken
    import tiktoken_ext.openai_public as public

    namespace: dict[str, Any] = dict(vars(public))
    if name not in getattr(public, "ENCODING_CONSTRUCTORS", {}):
        raise ConfigurationError(f"unknown tiktoken encoding {name!r}")
    for key, value in vars(public).items():
        if isinstance(value, types.FunctionType) and value.__module__ == public.__name__:
            namespace[key] = types.FunctionType(
                value.__code__, namespace, value.__name__, value.__defaults__, value.__closure__
            )
    namespace["load_tiktoken_bpe"] = _load_bpe_offline
    namespace["data_gym_to_mergeable_bpe_ranks"] = _no_download
    constructor = public.ENCODING_CONSTRUCTORS[name]
    params = namespace[constructor.__name__]()
    return tiktoken.Encoding(**params)


def _load_bpe_offline(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
    """Ranks of the BPE file tiktoken would download from ``url``, read from a local folder."""
    import hashlib  # here: only loading an encoding needs it

    filename = hashlib.sha1(url.encode()).hexdigest()  # tiktoken's cache key
    dirs = encoding_dirs()
    for folder in dirs:
        path = folder / filename
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if expected_hash and hashlib.sha256(data).hexdigest() != expected_hash:
            continue  # a corrupt or partial copy; another folder may hold a good one
        parts = data.split()
        if len(parts) % 2:
            continue
        try:
            return dict(
                zip(map(binascii.a2b_base64, parts[::2]), map(int, parts[1::2]), strict=True)
            )
        except (binascii.Error, ValueError):
            continue
    where = ", ".join(str(d) for d in dirs)
    raise ConfigurationError(
        f"tiktoken file for {url.rsplit('/', 1)[-1]!r} (named {filename}) not found in: {where}. "
        "summem never downloads it: reinstall litellm (its wheel ships the files) or copy the "
        "file into TIKTOKEN_CACHE_DIR; or count with summem.tokens.base.ApproxCounter."
    )


def _no_download(*args: object, **kwargs: object) -> dict[bytes, int]:
    raise ConfigurationError("this encoding is only available by download; summem stays offline")


# -- counting ---------------------------------------------------------------------------------


@runtime_checkable
class Encoder(Protocol):
    """The part of ``tiktoken.Encoding`` a counter uses (a test can pass a spy)."""

    @property
    def name(self) -> str:
        """The encoding's name, e.g. ``o200k_base``."""

    def encode_ordinary(self, text: str) -> list[int]:
        """Token ids of ``text``; special-token strings count as plain text."""


class TiktokenCounter:
    """Counts messages exactly as OpenAI bills them, following OpenAI's cookbook.

    Each message costs 3 tokens of framing, its role, its content and, with a name, the name plus
    1; every request adds 3 for the reply priming. Images, audio and files are estimated from
    their size (see :mod:`summem.tokens.media`); tool calls add :data:`TOOL_CALL_TOKENS` each.
    Counts are cached on the message, so each message is tokenized once.

    Args:
        model: an OpenAI model name; selects the encoding and the message framing.
        encoding: an encoding name or an :class:`Encoder`, for a model summem does not know.

    Raises:
        ConfigurationError: the model has no known encoding and none was given, or the
            encoding's file cannot be found offline.
    """

    request_overhead = 3

    def __init__(self, model: str = "gpt-4o", *, encoding: str | Encoder | None = None) -> None:
        self.model = model
        if encoding is None:
            encoding = encoding_name_for_model(model)
            if encoding is None:
                raise ConfigurationError(
                    f"no tiktoken encoding is known for model {model!r}; pass encoding=... "
                    "or count with summem.tokens.base.ApproxCounter"
                )
        self._encoder: Encoder | None = None
        if isinstance(encoding, str):
            if encoding not in _ENCODING_FILES:
                self._encoder = load_encoding(encoding)  # an unknown name fails here, at once
            self._encoding_name = encoding
        else:
            self._encoder = encoding
            self._encoding_name = encoding.name
        self._constants: dict[str, int] = {}
        legacy = _is_legacy_0301(model)
        self.tokens_per_message = 4 if legacy else 3
        self.tokens_per_name = -1 if legacy else 1
        self.key = f"tiktoken:{self._encoding_name}" + (":0301" if legacy else "")

    def __repr__(self) -> str:
        return f"TiktokenCounter(model={self.model!r}, encoding={self._encoding_name!r})"

    @property
    def encoding(self) -> Encoder:
        """The encoding, loaded on first use (about 0.3 s for ``o200k_base``).

        :meth:`bound_message` counts without it while it is not needed.
        """
        encoder = self._encoder
        if encoder is None:
            encoder = self._encoder = load_encoding(self._encoding_name)
        return encoder

    @property
    def loaded(self) -> bool:
        """Whether the encoding is loaded (here, or by any counter of this process)."""
        return self._encoder is not None or self._encoding_name in _ENCODINGS

    def _encode_ordinary(self, text: str) -> list[int]:
        # replaced by the encoding's own method once loaded (one call less per text), unless
        # something else was put in its place (a spy counting the calls)
        encode = self.encoding.encode_ordinary
        if "_encode_ordinary" not in self.__dict__:
            self._encode_ordinary = encode  # type: ignore[method-assign]
        return encode(text)

    def count_text(self, text: str) -> int:
        """Tokens of ``text`` (``<|endoftext|>`` and the like count as plain text)."""
        return len(self._encode_ordinary(text)) if text else 0

    def bound_text(self, text: str) -> int:
        """At least :meth:`count_text` of ``text``, without the encoding while it is not loaded.

        A byte-level BPE token stands for one byte or more, so the UTF-8 length bounds the
        count from above; once the encoding is loaded the count is exact.
        """
        if self.loaded:
            return self.count_text(text)
        return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))

    def bound_message(self, message: Message) -> int:
        """At least :meth:`count_message`, without the encoding while it is not loaded.

        Exact when the encoding is loaded or the count cached, else an upper bound for a
        message of plain texts (the UTF-8 bytes of each text).

        A budget far below its threshold needs no exact count: the session measures with this
        until its view's bound reaches a limit, then counts exactly (see
        :meth:`summem.reducers.base.BudgetReducer.size_bound`). Bounds are not cached.
        """
        cached = message.token_cache.get(self.key)
        if cached is not None:
            return cached
        if self.loaded:
            return self.count_message(message)
        content = message.content
        if (
            type(content) is not str
            or message.name
            or message.tool_calls
            or message._extra is not None
        ):
            return self.count_message(message)  # parts, calls, names, extras: counted exactly
        bound = self.bound_text
        n = self.tokens_per_message + self._constant_bound(message.role) + bound(content)
        if message.tool_call_id:
            n += bound(message.tool_call_id)
        return n

    def _constant_bound(self, text: str) -> int:
        n = self._constants.get(text)
        return n if n is not None else self.bound_text(text)

    def count_message(self, message: Message) -> int:
        """Tokens ``message`` adds to a request, counted once and cached on the message.

        Every text of the message (content, tool call arguments, its ``tool_call_id``...) is
        tokenized once; the role and the function names come from small caches.
        """
        cache = message.token_cache
        cached = cache.get(self.key)
        if cached is not None:
            return cached
        n = self.tokens_per_message + self._constant(message.role)
        content = message.content
        if (
            type(content) is str
            and not message.name
            and not message.tool_calls
            and not message.tool_call_id
            and message._extra is None
        ):  # the common message: one text, as the general case below would count it
            n += len(self._encode_ordinary(content)) if content else 0
            cache[self.key] = n
            return n
        texts: list[str] = []
        if isinstance(content, str):
            texts.append(content)
        elif content is not None:
            n += self._parts_tokens(content, texts)
        if message.name:
            n += self._constant(message.name) + self.tokens_per_name
        for call in message.tool_calls or ():
            n += self._call_tokens(call.get("function"), texts)
        if message.tool_call_id:
            texts.append(message.tool_call_id)
        extra = message.model_extra
        if extra:
            for key, value in extra.items():
                if key == "function_call":  # the legacy single call
                    n += self._call_tokens(value, texts)
                elif key == OPAQUE_KEY and isinstance(value, str):  # a compaction's payload
                    n += opaque_size(value, lambda text: self._count_all([text]))
                elif isinstance(value, str):  # e.g. refusal; other provider extras are not text
                    texts.append(value)
                elif key == "provider_specific_fields":  # Anthropic compaction blocks
                    texts.extend(provider_texts(value))
        n += self._count_all(texts)
        cache[self.key] = n
        return n

    def _count_all(self, texts: list[str]) -> int:
        """The tokens of every text, summed: one ``encode_ordinary`` call per text.

        Measured on the hot-path benchmark, one call per text is faster than joining the texts
        around a special token and encoding them in one ``encode`` call (which scans the whole
        text for special tokens first), even for a tool result with its short call id.
        """
        encode = self._encode_ordinary
        n = 0
        for text in texts:
            if text:
                n += len(encode(text))
        return n

    def _constant(self, text: str) -> int:
        """Tokens of a short text that recurs (a role, a name), from a bounded cache."""
        n = self._constants.get(text)
        if n is None:
            n = self.count_text(text)
            if len(self._constants) < _MAX_CONSTANTS:
                self._constants[text] = n
        return n

    def _parts_tokens(self, content: list[dict[str, Any]], texts: list[str]) -> int:
        """Media estimates of a content list; its texts are added to ``texts``."""
        n = 0
        for part in content:
            kind = part.get("type")
            if kind == "text":
                texts.append(str(part.get("text", "")))
            elif kind == "refusal":
                texts.append(str(part.get("refusal", "")))
            elif kind == "image_url":
                n += image_url_tokens(part.get("image_url") or {})
            elif kind == "input_audio":
                n += audio_tokens(part.get("input_audio") or {})
            elif kind == "file":
                n += file_tokens(part.get("file") or {}, self.count_text)
            else:
                n += self._unknown_part_tokens(part)
        return n

    def _call_tokens(self, function: object, texts: list[str]) -> int:
        if not isinstance(function, Mapping):
            return TOOL_CALL_TOKENS
        name, arguments = function.get("name"), function.get("arguments")
        if not isinstance(arguments, str):
            arguments = "" if arguments is None else str(arguments)
        texts.append(arguments)
        return TOOL_CALL_TOKENS + self._constant(str(name or ""))

    def _unknown_part_tokens(self, part: Mapping[str, Any]) -> int:
        """A part type summem does not know: its text is tokenized, binary data estimated."""
        n = 0
        for value in _strings(part):
            if value.startswith("data:") or _BASE64_BLOB.fullmatch(value):
                n += image_tokens(*DEFAULT_IMAGE_SIZE)  # media: a size estimate, never text
            else:
                n += self.count_text(value)
        return n


_MAX_CONSTANTS = 4096  # roles and function names: a few dozen in practice


def _strings(value: object) -> Iterator[str]:
    """Every string value nested in ``value`` (mapping keys and ``type`` tags excluded)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if key != "type":
                yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)
