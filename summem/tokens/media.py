"""What images, audio and files cost in a chat-completions request, without tokenizing them.

A base64 image or audio clip is never text to the model: tokenizing it would count a 1 MB photo as
hundreds of thousands of tokens and make a budget evict the whole conversation. OpenAI bills media
by size instead, so this module estimates that size from the data itself: image dimensions are
read from the PNG, JPEG, GIF or WEBP header (a few bytes; no Pillow), audio duration from its byte
length, PDF pages from the page objects. Nothing here downloads anything: a remote image URL has
an unknown size and is assumed to be :data:`DEFAULT_IMAGE_SIZE`.

The image formula is OpenAI's published one for the gpt-4o family (``low`` detail costs 85;
``high``/``auto`` scale the image to fit 2048x2048, then its shortest side down to 768, and cost
170 per 512px tile plus 85). Models billed by 32px patches (gpt-4.1-mini/nano, o4-mini) or with a
multiplier (gpt-4o-mini bills 2833 + 5667 per tile) are counted with the same formula: the budget
measures context, not price.
"""

from __future__ import annotations

import binascii
import math
import re
import struct
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "AUDIO_TOKENS_PER_SECOND",
    "DEFAULT_AUDIO_BYTES_PER_SECOND",
    "DEFAULT_IMAGE_SIZE",
    "FILE_TOKENS_PER_PAGE",
    "audio_tokens",
    "decode_data_url",
    "file_tokens",
    "image_dimensions",
    "image_tokens",
    "image_url_tokens",
]

DEFAULT_IMAGE_SIZE: tuple[int, int] = (1024, 1024)
"""Assumed size of an image whose size cannot be read (a remote URL): 765 tokens at high detail."""

AUDIO_TOKENS_PER_SECOND = 10
"""OpenAI counts input audio at about one token per 100 ms."""

DEFAULT_AUDIO_BYTES_PER_SECOND = 16_000
"""Assumed rate of compressed audio (mp3 and other formats): 128 kbit/s."""

FILE_TOKENS_PER_PAGE = 1_265
"""Estimated cost of one PDF page: OpenAI sends an image of each page (765 for a letter page at
high detail) and its extracted text (about 500 tokens for a dense page)."""

_FILE_BYTES_PER_PAGE = 100_000  # page estimate when a PDF's page objects are compressed away
_LOW_DETAIL_TOKENS = 85
_TILE_TOKENS = 170
_HEADER_CHARS = 1_024  # base64 characters decoded to read PNG, GIF and WEBP headers
_PDF_PAGE = re.compile(rb"/Type\s*/Page(?![A-Za-z])")
_DATA_URL = re.compile(r"data:([^;,]*)(;[^,]*)?,", re.ASCII)


def image_tokens(width: int, height: int, detail: str | None = "auto") -> int:
    """Tokens of a ``width`` x ``height`` image at ``detail`` (``low``, ``high`` or ``auto``).

    ``auto`` is counted as ``high``: OpenAI picks the detail itself, and overcounting an image is
    safer for a budget than undercounting it.
    """
    if detail == "low":
        return _LOW_DETAIL_TOKENS
    w, h = float(max(width, 1)), float(max(height, 1))
    if max(w, h) > 2048:  # fit in a 2048 x 2048 square
        scale = 2048 / max(w, h)
        w, h = w * scale, h * scale
    if min(w, h) > 768:  # shortest side down to 768 (images are never scaled up)
        scale = 768 / min(w, h)
        w, h = w * scale, h * scale
    tiles = math.ceil(w / 512) * math.ceil(h / 512)
    return _TILE_TOKENS * tiles + _LOW_DETAIL_TOKENS


def image_url_tokens(image_url: Mapping[str, Any] | str) -> int:
    """Tokens of an ``image_url`` content part's payload (``{"url": ..., "detail": ...}``)."""
    if isinstance(image_url, str):
        url, detail = image_url, "auto"
    else:
        url, detail = str(image_url.get("url") or ""), str(image_url.get("detail") or "auto")
    if detail == "low":
        return _LOW_DETAIL_TOKENS
    size = None
    if url.startswith("data:"):
        head = decode_data_url(url, _HEADER_CHARS)
        size = image_dimensions(head)
        if size is None and head[:3] == b"\xff\xd8\xff":  # a JPEG's size can sit behind EXIF
            size = image_dimensions(decode_data_url(url))
    return image_tokens(*(size or DEFAULT_IMAGE_SIZE), detail)


def decode_data_url(url: str, max_chars: int | None = None) -> bytes:
    """The bytes of a ``data:`` URL (or of plain base64), decoding at most ``max_chars`` of it.

    Returns ``b""`` when the payload is not valid base64.
    """
    match = _DATA_URL.match(url)
    start = match.end() if match else 0
    is_base64 = match is None or ";base64" in (match.group(2) or "")
    end = len(url) if max_chars is None else min(len(url), start + max_chars - max_chars % 4)
    chunk = url[start:end]
    if not is_base64:
        return chunk.encode("utf-8", "replace")
    try:
        return binascii.a2b_base64(chunk)
    except binascii.Error:
        return b""


def _base64_size(data: str) -> int:
    """Decoded size of a base64 string, without decoding it."""
    body = data.split(",", 1)[1] if data.startswith("data:") else data
    body = body.rstrip()
    return max(0, len(body) * 3 // 4 - (len(body) - len(body.rstrip("="))))


def image_dimensions(data: bytes) -> tuple[int, int] | None:
    """``(width, height)`` from the header of a PNG, JPEG, GIF or WEBP image; None otherwise."""
    try:
        if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
            w, h = struct.unpack(">II", data[16:24])
            return int(w), int(h)
        if data[:6] in (b"GIF87a", b"GIF89a"):
            w, h = struct.unpack("<HH", data[6:10])
            return int(w), int(h)
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            return _webp_dimensions(data)
        if data[:3] == b"\xff\xd8\xff":
            return _jpeg_dimensions(data)
    except struct.error:  # a truncated header
        return None
    return None


def _webp_dimensions(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X":  # extended: 24-bit width-1 and height-1
        w = int.from_bytes(data[24:27], "little") + 1
        h = int.from_bytes(data[27:30], "little") + 1
        return w, h
    if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":  # lossy: 14-bit sizes
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    if chunk == b"VP8L" and data[20:21] == b"\x2f":  # lossless: packed 14-bit sizes
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    return None


def _jpeg_dimensions(data: bytes) -> tuple[int, int] | None:
    """Walk the JPEG segments to the first start-of-frame marker, which holds the size."""
    i = 2
    while i + 9 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0x01, *range(0xD0, 0xDA)):  # markers without a length
            i += 2
            continue
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return int(w), int(h)
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        i += 2 + length
    return None


def audio_tokens(input_audio: Mapping[str, Any]) -> int:
    """Estimated tokens of an ``input_audio`` payload (``{"data": base64, "format": ...}``).

    The duration is exact for PCM WAV (the header gives the byte rate) and assumes 128 kbit/s for
    mp3 and other compressed formats; each second costs :data:`AUDIO_TOKENS_PER_SECOND`.
    """
    data = str(input_audio.get("data") or "")
    size = _base64_size(data)
    rate = DEFAULT_AUDIO_BYTES_PER_SECOND
    header = 0
    if str(input_audio.get("format", "")).lower() in ("wav", "wave"):
        parsed = _wav_byte_rate(decode_data_url(data, 4_096))
        if parsed is not None:
            rate, header = parsed
    seconds = max(0, size - header) / rate
    return math.ceil(seconds * AUDIO_TOKENS_PER_SECOND)


def _wav_byte_rate(data: bytes) -> tuple[int, int] | None:
    """``(byte_rate, header_size)`` of a RIFF/WAVE file, or None if this is not one."""
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return None
    i, rate = 12, None
    while i + 8 <= len(data):
        chunk, size = data[i : i + 4], int.from_bytes(data[i + 4 : i + 8], "little")
        if chunk == b"fmt " and i + 20 <= len(data):
            rate = int.from_bytes(data[i + 16 : i + 20], "little")
        elif chunk == b"data":
            return (rate, i + 8) if rate else None
        i += 8 + size + (size & 1)
    return None


def file_tokens(file: Mapping[str, Any], count_text: Callable[[str], int] | None = None) -> int:
    """Estimated tokens of a ``file`` content part's payload (a PDF, inline or by ``file_id``).

    Each page costs :data:`FILE_TOKENS_PER_PAGE`. Pages are counted from the PDF's page objects;
    when they are compressed away, one page per 100 kB is assumed; a ``file_id`` (whose content
    summem cannot see) counts as one page. ``count_text``, when given, counts the filename.
    """
    data = file.get("file_data")
    pages = 1
    if isinstance(data, str) and data:
        raw = decode_data_url(data)
        pages = len(_PDF_PAGE.findall(raw)) or 1 + len(raw) // _FILE_BYTES_PER_PAGE
    name = file.get("filename")
    named = count_text(str(name)) if count_text is not None and name else 0
    return named + pages * FILE_TOKENS_PER_PAGE
