"""Token counting: exact OpenAI counts offline, media estimates, caching, counter resolution."""

from __future__ import annotations

import base64
import io
import os
import struct
import subprocess
import sys
import threading
import wave
import zlib
from pathlib import Path
from typing import Any

import pytest
import tiktoken
import tiktoken.registry

from summem.errors import ConfigurationError
from summem.messages import Message, assistant, tool, user
from summem.tokens import openai as _openai_tokens
from summem.tokens.base import (
    ApproxCounter,
    CallableCounter,
    TokenCounter,
    count_messages,
    resolve_counter,
)
from summem.tokens.media import (
    DEFAULT_IMAGE_SIZE,
    FILE_TOKENS_PER_PAGE,
    audio_tokens,
    decode_data_url,
    file_tokens,
    image_dimensions,
    image_tokens,
)
from summem.tokens.openai import (
    TOOL_CALL_TOKENS,
    TiktokenCounter,
    encoding_dirs,
    encoding_name_for_model,
    load_encoding,
)

# The example conversation of OpenAI's cookbook, "How to count tokens with tiktoken"
# (examples/How_to_count_tokens_with_tiktoken.ipynb), whose prompt_tokens the API reported.
COOKBOOK_MESSAGES: list[dict[str, Any]] = [
    {
        "role": "system",
        "content": "You are a helpful, pattern-following assistant that translates corporate "
        "jargon into plain English.",
    },
    {
        "role": "system",
        "name": "example_user",
        "content": "New synergies will help drive top-line growth.",
    },
    {
        "role": "system",
        "name": "example_assistant",
        "content": "Things working well together will increase revenue.",
    },
    {
        "role": "system",
        "name": "example_user",
        "content": "Let's circle back when we have more bandwidth to touch base on opportunities "
        "for increased leverage.",
    },
    {
        "role": "system",
        "name": "example_assistant",
        "content": "Let's talk later when we're less busy about how to do better.",
    },
    {
        "role": "user",
        "content": "This late pivot means we don't have time to boil the ocean for the client "
        "deliverable.",
    },
]


@pytest.fixture(scope="module")
def o200k() -> TiktokenCounter:
    return TiktokenCounter("gpt-4o")


@pytest.fixture(scope="module")
def cl100k() -> TiktokenCounter:
    return TiktokenCounter("gpt-4")


def msgs(data: list[dict[str, Any]]) -> list[Message]:
    return [Message.from_openai(d) for d in data]


def png(width: int, height: int, padding: int = 0) -> bytes:
    """A PNG signature and IHDR chunk (all a size reader needs), plus ``padding`` bytes."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk + os.urandom(padding)


def data_url(data: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64," + base64.b64encode(data).decode()


def image_message(url: str, detail: str | None = None) -> Message:
    image: dict[str, Any] = {"url": url}
    if detail is not None:
        image["detail"] = detail
    return user([{"type": "image_url", "image_url": image}])


# -- model names and encodings -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4o", "o200k_base"),
        ("gpt-4o-mini-2024-07-18", "o200k_base"),
        ("chatgpt-4o-latest", "o200k_base"),
        ("gpt-4.1-nano", "o200k_base"),
        ("gpt-5", "o200k_base"),
        ("o1", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("o4-mini-2025-04-16", "o200k_base"),
        ("openai/gpt-4o", "o200k_base"),
        ("azure/gpt-4.1", "o200k_base"),
        ("openrouter/openai/gpt-4o-mini", "o200k_base"),
        ("ft:gpt-4o-mini-2024-07-18:acme::abc123", "o200k_base"),
        ("GPT-4O", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-4-0613", "cl100k_base"),
        ("gpt-4-turbo", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("azure/gpt-35-turbo", "cl100k_base"),
        ("text-embedding-3-small", "cl100k_base"),
        ("claude-3-5-sonnet", None),
        ("anthropic/claude-3-5-sonnet-20241022", None),
        ("gemini/gemini-1.5-pro", None),
        ("o1x", None),
        ("azure/my-deployment", None),
        ("llama-3-70b", None),
    ],
)
def test_encoding_name_for_model(model: str, expected: str | None) -> None:
    assert encoding_name_for_model(model) == expected


@pytest.mark.parametrize(
    ("text", "cl100k_tokens", "o200k_tokens"),
    [  # counts published in the cookbook notebook
        ("hello world", 2, 2),
        ("antidisestablishmentarianism", 6, 6),
        ("2 + 2 = 4", 7, 7),
        ("お誕生日おめでとう", 9, 8),
        ("", 0, 0),
    ],
)
def test_count_text_matches_published_counts(
    cl100k: TiktokenCounter,
    o200k: TiktokenCounter,
    text: str,
    cl100k_tokens: int,
    o200k_tokens: int,
) -> None:
    assert cl100k.count_text(text) == cl100k_tokens
    assert o200k.count_text(text) == o200k_tokens


def test_special_token_text_is_plain_text(o200k: TiktokenCounter) -> None:
    assert o200k.count_text("<|endoftext|>") > 1  # tokenized as characters, never rejected


@pytest.mark.parametrize(
    ("model", "prompt_tokens"),
    [
        ("gpt-3.5-turbo", 129),
        ("gpt-4-0613", 129),
        ("gpt-4", 129),
        ("gpt-4o", 124),
        ("gpt-4o-mini", 124),
        ("gpt-3.5-turbo-0301", 127),  # 4 tokens a message, the name replaces the role
    ],
)
def test_cookbook_example_counts_exactly(model: str, prompt_tokens: int) -> None:
    assert count_messages(TiktokenCounter(model), msgs(COOKBOOK_MESSAGES)) == prompt_tokens


def test_name_costs_its_tokens_plus_one(o200k: TiktokenCounter) -> None:
    plain = o200k.count_message(user("hi"))
    named = o200k.count_message(user("hi", name="example_user"))
    assert named == plain + o200k.count_text("example_user") + 1


def test_key_names_the_encoding_and_legacy_framing() -> None:
    assert TiktokenCounter("gpt-4o").key == "tiktoken:o200k_base"
    assert TiktokenCounter("gpt-3.5-turbo-0301").key == "tiktoken:cl100k_base:0301"
    assert TiktokenCounter("gpt-4").request_overhead == 3


def test_unknown_model_needs_an_explicit_encoding() -> None:
    with pytest.raises(ConfigurationError, match="claude"):
        TiktokenCounter("claude-3-5-sonnet")
    counter = TiktokenCounter("my-finetune", encoding="cl100k_base")
    assert counter.count_text("hello world") == 2


def test_encodings_are_loaded_once_and_shared(o200k: TiktokenCounter) -> None:
    assert load_encoding("o200k_base") is o200k.encoding
    assert TiktokenCounter("gpt-5").encoding is o200k.encoding


def test_concurrent_first_loads_build_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_openai_tokens, "_ENCODINGS", {})
    monkeypatch.delitem(tiktoken.registry.ENCODINGS, "cl100k_base", raising=False)
    builds: list[str] = []
    real = _openai_tokens._build_encoding

    def counting_build(name: str) -> Any:
        builds.append(name)
        return real(name)

    monkeypatch.setattr(_openai_tokens, "_build_encoding", counting_build)
    results: list[Any] = []
    threads = [
        threading.Thread(target=lambda: results.append(load_encoding("cl100k_base")))
        for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert builds == ["cl100k_base"]
    assert len(results) == 8
    assert all(r is results[0] for r in results)


def test_tiktoken_and_summem_share_one_encoding(monkeypatch: pytest.MonkeyPatch) -> None:
    """No second ~30 MB copy: tiktoken's own Encoding is reused, and one summem builds
    offline is the one ``tiktoken.get_encoding`` (litellm's path) returns afterwards."""
    monkeypatch.setattr(_openai_tokens, "_ENCODINGS", {})
    monkeypatch.delitem(tiktoken.registry.ENCODINGS, "cl100k_base", raising=False)
    built = load_encoding("cl100k_base")
    assert tiktoken.get_encoding("cl100k_base") is built
    monkeypatch.setattr(_openai_tokens, "_ENCODINGS", {})
    theirs = tiktoken.get_encoding("cl100k_base")
    assert load_encoding("cl100k_base") is theirs


def test_each_text_of_a_message_is_tokenized_once(o200k: TiktokenCounter) -> None:
    """Role and names come from caches; content, arguments and the call id are each encoded
    once (``encode_ordinary``, never ``encode``), and the count is their sum."""
    calls: list[str] = []
    real = o200k.encoding

    class Spy:
        name = "o200k_base"

        def encode_ordinary(self, text: str) -> list[int]:
            calls.append(text)
            return real.encode_ordinary(text)

    counter = TiktokenCounter("gpt-4o", encoding=Spy())
    counter.count_message(user("warm the role cache", name="bob"))
    counter.count_message(tool("warm", tool_call_id="x"))
    counter.count_message(assistant(tool_calls=[{"id": "w", "function": {"name": "f"}}]))
    calls.clear()
    result = tool("18 degrees  \n", tool_call_id="call_abc")
    expected = 3 + o200k.count_text("tool") + o200k.count_text("18 degrees  \n")
    expected += o200k.count_text("call_abc")
    assert counter.count_message(result) == expected
    assert calls == ["18 degrees  \n", "call_abc"]
    calls.clear()
    text = "<|endoftext|> inside the text is plain text"
    odd = tool(text, tool_call_id="call_abc")
    expected = 3 + o200k.count_text("tool") + o200k.count_text(text) + o200k.count_text("call_abc")
    assert counter.count_message(odd) == expected  # special-token text counts as plain text
    assert calls == [text, "call_abc"]
    calls.clear()
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
    again = {**call, "id": "c2", "function": {"name": "f", "arguments": '{"b": 2}'}}
    counter.count_message(assistant("checking", tool_calls=[call, again]))
    assert calls == ["checking", '{"a": 1}', '{"b": 2}']  # the function name came from the cache


def test_loading_leaves_the_environment_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_openai_tokens, "_ENCODINGS", {})
    before = dict(os.environ)
    load_encoding("cl100k_base")
    assert dict(os.environ) == before


def test_litellm_folder_is_searched_first() -> None:
    first = encoding_dirs()[0]
    assert first.parts[-3:] == ("litellm", "litellm_core_utils", "tokenizers")


def test_missing_file_raises_and_names_the_folders(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(_openai_tokens, "encoding_dirs", lambda: [tmp_path])
    with pytest.raises(ConfigurationError, match="never downloads") as info:
        _openai_tokens._build_encoding("o200k_base")
    assert str(tmp_path) in str(info.value)
    assert "o200k_base.tiktoken" in str(info.value)


def test_corrupt_copy_is_skipped_for_a_good_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real_dirs = encoding_dirs()
    (tmp_path / "9b5ad71b2ce5302211f9c61530b329a4922fc6a4").write_bytes(b"aGVsbG8= 0\n")
    monkeypatch.setattr(_openai_tokens, "encoding_dirs", lambda: [tmp_path, *real_dirs])
    encoding = _openai_tokens._build_encoding("cl100k_base")
    assert len(encoding.encode_ordinary("hello world")) == 2


@pytest.mark.parametrize("name", ["gpt2", "nonexistent_base"])
def test_encodings_that_need_a_download_or_do_not_exist(name: str) -> None:
    with pytest.raises(ConfigurationError):
        _openai_tokens._build_encoding(name)


# -- message parts ---------------------------------------------------------------------------


def test_text_parts_count_like_a_string(o200k: TiktokenCounter) -> None:
    as_str = o200k.count_message(user("hello world"))
    as_parts = o200k.count_message(user([{"type": "text", "text": "hello world"}]))
    assert as_parts == as_str


@pytest.mark.parametrize(
    ("size", "detail", "tokens"),
    [
        ((1024, 1024), "high", 765),  # OpenAI's published examples
        ((2048, 4096), "high", 1105),
        ((4096, 8192), "low", 85),
        ((1024, 1024), "auto", 765),
        ((1024, 1024), None, 765),
        ((512, 512), "high", 255),  # small images are never scaled up
        ((513, 512), "high", 425),
        ((100, 3000), "high", 4 * 170 + 85),  # fits 2048: 68 x 2048 -> 1 x 4 tiles
    ],
)
def test_image_formula(size: tuple[int, int], detail: str | None, tokens: int) -> None:
    assert image_tokens(*size, detail) == tokens


@pytest.mark.parametrize(
    ("size", "detail", "tokens"),
    [
        ((1024, 1024), "low", 85),
        ((1024, 1024), "high", 765),
        ((2048, 4096), "high", 1105),
        ((2048, 4096), None, 1105),
    ],
)
def test_image_part_cost_comes_from_the_data_url_header(
    o200k: TiktokenCounter, size: tuple[int, int], detail: str | None, tokens: int
) -> None:
    overhead = o200k.count_message(user([]))
    message = image_message(data_url(png(*size)), detail)
    assert o200k.count_message(message) == overhead + tokens


def test_large_base64_image_is_never_tokenized_as_text(o200k: TiktokenCounter) -> None:
    url = data_url(png(1024, 1024, padding=3_000_000))
    assert len(url) > 4_000_000
    tokens = o200k.count_message(image_message(url, "high"))
    assert tokens == o200k.count_message(user([])) + 765


def test_remote_image_assumes_the_default_size(o200k: TiktokenCounter) -> None:
    message = image_message("https://example.com/cat.png")  # never fetched (network is blocked)
    assert o200k.count_message(message) == o200k.count_message(user([])) + image_tokens(
        *DEFAULT_IMAGE_SIZE
    )


@pytest.mark.parametrize(
    ("fmt", "mode", "options"),
    [
        ("PNG", "RGB", {}),
        ("GIF", "P", {}),
        ("JPEG", "RGB", {}),
        ("JPEG", "RGB", {"progressive": True}),
        ("JPEG", "RGB", {"exif": b"Exif\x00\x00" + b"\x00" * 60_000}),  # size behind 60 kB
        ("WEBP", "RGB", {"lossless": True}),
        ("WEBP", "RGB", {"quality": 80}),
        ("WEBP", "RGBA", {"quality": 80}),  # extended (VP8X) header
    ],
)
def test_image_sizes_read_from_real_files(fmt: str, mode: str, options: dict[str, Any]) -> None:
    image_module = pytest.importorskip("PIL.Image")
    buffer = io.BytesIO()
    image_module.new(mode, (1500, 333)).save(buffer, fmt, **options)
    data = buffer.getvalue()
    assert image_dimensions(data) == (1500, 333)
    counter = TiktokenCounter("gpt-4o")
    # 1500 x 333 high: no scaling, 3 x 1 tiles
    message = image_message(data_url(data, f"image/{fmt.lower()}"), "high")
    assert counter.count_message(message) == counter.count_message(user([])) + 3 * 170 + 85


@pytest.mark.parametrize(
    "data", [b"", b"GIF8", b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff\xe0\x00", b"not an image at all"]
)
def test_unreadable_headers_give_no_size(data: bytes) -> None:
    assert image_dimensions(data) is None


def test_bad_base64_falls_back_to_the_default_size(o200k: TiktokenCounter) -> None:
    message = image_message("data:image/png;base64,!!!not-base64!!!", "high")
    assert o200k.count_message(message) == o200k.count_message(user([])) + 765
    assert decode_data_url("data:image/png;base64,abc") == b""


def wav_bytes(seconds: float, rate: int = 16_000) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"\x00\x00" * int(rate * seconds))
    return buffer.getvalue()


def test_wav_audio_costs_ten_tokens_a_second(o200k: TiktokenCounter) -> None:
    data = base64.b64encode(wav_bytes(2.0)).decode()
    assert audio_tokens({"data": data, "format": "wav"}) == 20
    message = user([{"type": "input_audio", "input_audio": {"data": data, "format": "wav"}}])
    assert o200k.count_message(message) == o200k.count_message(user([])) + 20
    assert o200k.count_text(data) > 1_000  # what tokenizing it as text would have cost


def test_mp3_audio_assumes_128_kbps() -> None:
    data = base64.b64encode(b"\xff\xfb" + bytes(159_998)).decode()  # 160 kB: 10 s
    assert audio_tokens({"data": data, "format": "mp3"}) == 100
    assert audio_tokens({"data": "", "format": "mp3"}) == 0


def test_pdf_file_costs_per_page(o200k: TiktokenCounter) -> None:
    pdf = (
        b"%PDF-1.4\n"
        + b"".join(b"%d 0 obj << /Type /Page /Parent 1 0 R >> endobj\n" % i for i in range(3))
        + b"1 0 obj << /Type /Pages /Count 3 >> endobj\n"
    )
    part = {"file_data": data_url(pdf, "application/pdf"), "filename": "report.pdf"}
    expected = 3 * FILE_TOKENS_PER_PAGE + o200k.count_text("report.pdf")
    assert file_tokens(part, o200k.count_text) == expected
    message = user([{"type": "file", "file": part}])
    assert o200k.count_message(message) == o200k.count_message(user([])) + expected
    assert file_tokens({"file_id": "file-abc"}) == FILE_TOKENS_PER_PAGE


def test_tool_calls_cost_name_arguments_and_a_fixed_overhead(o200k: TiktokenCounter) -> None:
    args = '{"city": "Paris", "unit": "celsius"}'
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": args},
    }
    message = assistant(tool_calls=[call, {**call, "id": "call_2"}])
    per_call = TOOL_CALL_TOKENS + o200k.count_text("get_weather") + o200k.count_text(args)
    assert o200k.count_message(message) == 3 + o200k.count_text("assistant") + 2 * per_call


def test_tool_result_counts_its_call_id(o200k: TiktokenCounter) -> None:
    message = tool("18 degrees", tool_call_id="call_abc")
    expected = (
        3 + o200k.count_text("tool") + o200k.count_text("18 degrees") + o200k.count_text("call_abc")
    )
    assert o200k.count_message(message) == expected


def test_unknown_part_types_count_text_and_estimate_binary(o200k: TiktokenCounter) -> None:
    blob = base64.b64encode(os.urandom(300_000)).decode()
    part = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": blob}}
    tokens = o200k.count_message(user([part]))
    expected = o200k.count_message(user([])) + o200k.count_text("image/png") + 765
    assert tokens == expected


def test_odd_parts_and_calls_count_like_their_texts(o200k: TiktokenCounter) -> None:
    base = o200k.count_message(Message.from_openai({"role": "assistant", "content": []}))
    refusal = Message.from_openai(
        {"role": "assistant", "content": [{"type": "refusal", "refusal": "no way"}]}
    )
    assert o200k.count_message(refusal) == base + o200k.count_text("no way")
    legacy = Message.from_openai(
        {"role": "assistant", "content": "ok", "function_call": "not a mapping"}
    )
    ok = o200k.count_message(Message.from_openai({"role": "assistant", "content": "ok"}))
    assert o200k.count_message(legacy) == ok + TOOL_CALL_TOKENS
    no_args = Message.from_openai(
        {"role": "assistant", "content": "ok", "function_call": {"name": "f", "arguments": None}}
    )
    assert o200k.count_message(no_args) == ok + TOOL_CALL_TOKENS + o200k.count_text("f")
    dict_args = Message.from_openai(
        {"role": "assistant", "content": "ok", "function_call": {"name": "f", "arguments": {}}}
    )
    expected = ok + TOOL_CALL_TOKENS + o200k.count_text("f") + o200k.count_text("{}")
    assert o200k.count_message(dict_args) == expected


def test_another_tiktoken_layout_keeps_its_own_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_openai_tokens, "_ENCODINGS", {})
    monkeypatch.delattr(tiktoken.registry, "_lock")
    encoding = load_encoding("cl100k_base")
    assert encoding.name == "cl100k_base"


def test_string_extras_and_legacy_function_call_are_counted(o200k: TiktokenCounter) -> None:
    base = o200k.count_message(Message.from_openai({"role": "assistant", "content": "ok"}))
    with_refusal = Message.from_openai({"role": "assistant", "content": "ok", "refusal": "no way"})
    assert o200k.count_message(with_refusal) == base + o200k.count_text("no way")
    legacy = Message.from_openai(
        {"role": "assistant", "content": "ok", "function_call": {"name": "f", "arguments": "{}"}}
    )
    extra = TOOL_CALL_TOKENS + o200k.count_text("f") + o200k.count_text("{}")
    assert o200k.count_message(legacy) == base + extra


# -- caching -------------------------------------------------------------------------------------


class SpyEncoder:
    def __init__(self) -> None:
        self.inner = load_encoding("o200k_base")
        self.name = "o200k_base"
        self.calls = 0

    def encode_ordinary(self, text: str) -> list[int]:
        self.calls += 1
        return self.inner.encode_ordinary(text)


def test_each_message_is_tokenized_once() -> None:
    spy = SpyEncoder()
    counter = TiktokenCounter("gpt-4o", encoding=spy)
    message = user("a message long enough to be worth caching", name="bob")
    first = counter.count_message(message)
    calls = spy.calls
    assert calls > 0
    assert counter.count_message(message) == first
    assert count_messages(counter, [message, message]) == 2 * first + 3
    assert spy.calls == calls
    assert message.token_cache[counter.key] == first


def test_counters_do_not_share_cache_entries(
    o200k: TiktokenCounter, cl100k: TiktokenCounter
) -> None:
    message = user("お誕生日おめでとう")
    assert o200k.count_message(message) != cl100k.count_message(message)
    assert set(message.token_cache) == {o200k.key, cl100k.key}


# -- ApproxCounter, CallableCounter, resolve_counter ------------------------------------------


def test_approx_counter_estimates_four_characters_a_token() -> None:
    counter = ApproxCounter()
    assert counter.count_text("") == 0
    assert counter.count_text("abcde") == 2
    assert counter.count_message(user("x" * 40)) == 4 + 10
    image = {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
    assert counter.count_message(user([{"type": "text", "text": "x" * 8}, image])) == 4 + 2 + 765
    refusal = Message.from_openai(
        {"role": "assistant", "content": [{"type": "refusal", "refusal": "x" * 8}]}
    )
    assert counter.count_message(refusal) == 4 + 2  # refusal text, not an image estimate
    call = {"id": "c", "type": "function", "function": {"name": "abcd", "arguments": "x" * 8}}
    assert counter.count_message(assistant(tool_calls=[call])) == 4 + 3 + 1 + 2
    assert counter.count_message(user("x" * 4, name="bob")) == 4 + 1 + 1 + 1
    assert counter.count_message(tool("x" * 4, tool_call_id="c" * 8)) == 4 + 1 + 2


def test_approx_counter_caches_under_its_settings() -> None:
    message = user("x" * 40)
    coarse, fine = ApproxCounter(chars_per_token=8.0), ApproxCounter(chars_per_token=2.0)
    assert coarse.count_message(message) == 4 + 5
    assert fine.count_message(message) == 4 + 20
    assert coarse.key != fine.key
    message.token_cache[coarse.key] = 999
    assert coarse.count_message(message) == 999  # served from the cache


def test_resolve_len_counts_messages() -> None:
    counter = resolve_counter(len)
    assert isinstance(counter, CallableCounter)
    messages = [user("a"), assistant("a much longer reply " * 50), user("c")]
    assert count_messages(counter, messages) == 3
    assert [counter.count_message(m) for m in messages] == [1, 1, 1]


def test_callable_counter_receives_openai_dicts() -> None:
    seen: list[Any] = []

    def fn(batch: Any) -> int:
        seen.append(batch)
        return 7

    counter = CallableCounter(fn)
    message = user("hi", name="bob")
    assert counter.count_message(message) == 7
    assert counter.count_message(message) == 7
    assert seen == [[{"role": "user", "content": "hi", "name": "bob"}]]  # called once, cached


def test_resolve_counter_by_model() -> None:
    assert isinstance(resolve_counter(model="claude-3-5-sonnet"), ApproxCounter)
    assert isinstance(resolve_counter(model="gemini/gemini-2.0-flash"), ApproxCounter)
    counter = resolve_counter(model="openai/gpt-4o-mini")
    assert isinstance(counter, TiktokenCounter)
    assert counter.key == "tiktoken:o200k_base"
    assert resolve_counter().key == "tiktoken:o200k_base"  # gpt-4o's tokenizer by default
    assert resolve_counter(model="gpt-4").key == "tiktoken:cl100k_base"


def test_resolve_counter_passes_counters_through_and_rejects_junk() -> None:
    approx = ApproxCounter()
    assert resolve_counter(approx) is approx
    assert isinstance(TiktokenCounter("gpt-4o"), TokenCounter)
    with pytest.raises(TypeError):
        resolve_counter(42)  # type: ignore[arg-type]


# -- laziness ------------------------------------------------------------------------------------


def test_import_does_not_load_litellm_or_tiktoken() -> None:
    code = (
        "import sys, summem, summem.tokens.base\n"
        "assert 'litellm' not in sys.modules, 'litellm imported'\n"
        "assert 'tiktoken' not in sys.modules, 'tiktoken imported'\n"
        "from summem.tokens.base import resolve_counter\n"
        "counter = resolve_counter(model='gpt-4o')\n"
        "assert counter.count_text('hello world') == 2\n"
        "assert 'litellm' not in sys.modules, 'litellm imported to find its files'\n"
    )
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env
    )
    assert result.returncode == 0, result.stderr
