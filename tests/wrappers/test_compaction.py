"""Provider compaction through the wrappers, on the providers' documented wire formats.

OpenAI: ``responses.create(context_management=[{"type": "compaction", ...}])`` answers with a
``compaction`` item in ``output`` (the real openai SDK over a mocked transport). Anthropic: a
``compaction`` block first in the reply's content (beta ``compact-2026-01-12``), through the
real ``litellm.completion`` mocked at api.anthropic.com (respx); litellm keeps the block in
``provider_specific_fields["compaction_blocks"]`` and sends it back first in its turn.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import pytest
import respx

from summem import Memory, SummarizationReducer, wrap_completion, wrap_openai
from summem.formats.compaction import TWIN_OF
from tests.fakes.replies import ANTHROPIC_URL, OPENAI_URL, anthropic_message, openai_completion
from tests.fakes.responses import response, stream_events, text_item
from tests.fakes.transport import Recorder, replies, sse_events

SECRET = base64.b64encode(bytes((i * 53 + 7) % 256 for i in range(2400))).decode()
ITEM = {"type": "compaction", "id": "cmp_9", "encrypted_content": SECRET}
MANAGED = [{"type": "compaction", "compact_threshold": 1000}]
CLAUDE = "anthropic/claude-sonnet-4-5"


def reducer() -> SummarizationReducer:
    return SummarizationReducer(threshold_tokens=100_000, target_tokens=50_000)


def test_responses_with_context_management_send_the_item_next_and_keep_the_twin() -> None:
    rec = Recorder(
        replies(
            response([text_item("Code 1001.")], n=1),
            response([ITEM, text_item("Code 1002.", n=2)], n=2),
            response([text_item("Both noted.", n=3)], n=3),
        )
    )
    memory = Memory("s", reducer=reducer())
    client = wrap_openai(rec.client(), memory)
    for n, text in enumerate(("order A1?", "order A2?", "and both?")):
        client.responses.create(
            model="gpt-5.4",
            input=[{"role": "user", "content": text}],
            context_management=MANAGED,
            store=False,
        )
        assert rec.requests[n][2]["context_management"] == MANAGED
    third = rec.requests[2][2]["input"]
    # the compaction item stands for everything before it: OpenAI allows dropping that
    assert third == [ITEM, text_item("Code 1002.", n=2), {"role": "user", "content": "and both?"}]
    twin = memory.summary
    assert twin is not None and twin.summary_info is not None
    assert twin.summary_info.extra[TWIN_OF]["id"] == "cmp_9"
    assert "A1" in twin.text and "A2" in twin.text and "binary data" not in twin.text
    assert len(memory.history()) == 7  # nothing lost


def test_a_compaction_item_in_a_streamed_reply_is_kept() -> None:
    out = [ITEM, text_item("Streamed.")]
    rec = Recorder(
        replies(
            response([text_item("Hi.")], n=1),
            sse_events(stream_events(out)),
            response([text_item("Ok.")], n=3),
        )
    )
    memory = Memory("s", reducer=reducer())
    client = wrap_openai(rec.client(), memory)
    client.responses.create(model="m", input="hello")
    stream = client.responses.create(model="m", input="more", stream=True)
    assert [e.type for e in stream][-1] == "response.completed"
    client.responses.create(model="m", input="last")
    assert rec.requests[2][2]["input"] == [ITEM, text_item("Streamed."), _user("last")]
    assert memory.summary is not None


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def _claude_reply(*, compaction: str | None, text: str = "Noted.") -> dict[str, Any]:
    body: dict[str, Any] = anthropic_message(text)
    if compaction is not None:
        block = {"type": "compaction", "content": compaction, "signature": "sig_abc"}
        body["content"] = [block, *body["content"]]
    return body


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch, litellm_httpx: Any) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def _run_claude_then(
    memory: Memory, replies_: list[dict[str, Any]], models: list[str]
) -> list[tuple[str, dict[str, Any]]]:
    import litellm

    bodies: list[tuple[str, dict[str, Any]]] = []
    queue = list(replies_)

    def anthropic(request: httpx.Request) -> httpx.Response:
        bodies.append(("anthropic", json.loads(request.content)))
        return httpx.Response(200, json=queue.pop(0))

    def openai(request: httpx.Request) -> httpx.Response:
        bodies.append(("openai", json.loads(request.content)))
        return httpx.Response(200, json=openai_completion("From GPT."))

    completion = wrap_completion(litellm.completion, memory)
    with respx.mock(assert_all_mocked=True, assert_all_called=False) as router:
        router.post(ANTHROPIC_URL).mock(side_effect=anthropic)
        router.post(OPENAI_URL).mock(side_effect=openai)
        for n, model in enumerate(models):
            completion(
                model=model,
                messages=[_user(f"question {n} about order A{n}")],
                extra_headers={"anthropic-beta": "compact-2026-01-12"},
            )
    return bodies


def test_anthropic_blocks_go_back_to_claude_and_never_to_another_provider(keys: None) -> None:
    memory = Memory("s", reducer=reducer())
    bodies = _run_claude_then(
        memory,
        [
            _claude_reply(compaction=None, text="A0 noted."),
            _claude_reply(compaction="The user asked about A0 and A1."),
            _claude_reply(compaction=None, text="A2 noted."),
        ],
        [CLAUDE, CLAUDE, CLAUDE, "gpt-4.1-mini"],
    )
    kinds = [k for k, _ in bodies]
    assert kinds == ["anthropic", "anthropic", "anthropic", "openai"]
    stored = memory.history()[3]
    assert stored["provider_specific_fields"]["compaction_blocks"][0]["content"] == (
        "The user asked about A0 and A1."
    )
    # the next request to Claude carries the block first in its turn
    third = bodies[2][1]["messages"]
    turns_with_block = [
        m
        for m in third
        if isinstance(m["content"], list) and m["content"][0]["type"] == "compaction"
    ]
    assert len(turns_with_block) == 1
    assert turns_with_block[0]["content"][0]["signature"] == "sig_abc"
    # the switch to OpenAI: no block, no field it would refuse; the twin stands for the span
    to_openai = json.dumps(bodies[3][1])
    assert "compaction" not in to_openai and "provider_specific_fields" not in to_openai
    twin = memory.summary
    assert twin is not None and twin.summary_info is not None
    assert twin.summary_info.extra[TWIN_OF]["provider"] == "anthropic"
    assert twin.text in to_openai.replace("\\n", "\n")


def test_an_empty_anthropic_block_is_a_no_op(keys: None) -> None:
    memory = Memory("s", reducer=reducer())
    bodies = _run_claude_then(
        memory,
        [
            _claude_reply(compaction=None),
            _claude_reply(compaction=""),
            _claude_reply(compaction=None),
        ],
        [CLAUDE, CLAUDE, CLAUDE],
    )
    assert "provider_specific_fields" not in memory.history()[3]
    assert memory.summary is None  # nothing compacted: nothing to twin, the history stays
    assert len(bodies[2][1]["messages"]) == 5


# -- context editing: the server clears old tool results instead of summem's masking ----------


def _tool_turns(completion: Any, model: str, n: int, **extra: Any) -> None:
    for i in range(n):
        call = {
            "id": f"call_{model[:3]}{i}",
            "type": "function",
            "function": {"name": "lookup_order", "arguments": json.dumps({"code": f"A{i}"})},
        }
        result = "status=shipped; " + "detail " * 120 + f"code={1000 + i}"
        completion(
            model=model,
            messages=[
                _user(f"look up A{i}"),
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": call["id"], "content": result},
            ],
            **extra,
        )


def test_on_anthropic_routes_the_server_clears_tool_results_and_others_keep_the_stubs(
    keys: None,
) -> None:
    import litellm

    memory = Memory(
        "s",
        reducer=SummarizationReducer(
            threshold_tokens=100_000,
            target_tokens=50_000,
            mask_tool_results_after=1,
            mask_min_tokens=20,
        ),
    )
    completion = wrap_completion(
        litellm.completion, memory, clear_tool_uses={"keep": {"type": "tool_uses", "value": 1}}
    )
    claude: list[tuple[dict[str, Any], httpx.Headers]] = []
    gpt: list[dict[str, Any]] = []

    def anthropic(request: httpx.Request) -> httpx.Response:
        claude.append((json.loads(request.content), request.headers))
        return httpx.Response(200, json=anthropic_message("Done."))

    def openai(request: httpx.Request) -> httpx.Response:
        gpt.append(json.loads(request.content))
        return httpx.Response(200, json=openai_completion("Done."))

    with respx.mock(assert_all_mocked=True, assert_all_called=False) as router:
        router.post(ANTHROPIC_URL).mock(side_effect=anthropic)
        router.post(OPENAI_URL).mock(side_effect=openai)
        _tool_turns(completion, CLAUDE, 3)
        completion(model="gpt-4.1-mini", messages=[_user("and the first one?")])
    body, headers = claude[-1]
    assert body["context_management"] == {
        "edits": [{"keep": {"type": "tool_uses", "value": 1}, "type": "clear_tool_uses_20250919"}]
    }
    assert "context-management-2025-06-27" in headers.get("anthropic-beta", "")
    sent = json.dumps(body)
    assert "masked tool result" not in sent and "code=1000" in sent  # the server clears them
    to_gpt = json.dumps(gpt[-1])
    assert "masked tool result" in to_gpt and "context_management" not in to_gpt
    assert "code=1000" in json.dumps(memory.history())  # history unchanged


def test_clear_tool_uses_must_be_a_bool_or_a_mapping() -> None:
    from summem.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="clear_tool_uses"):
        wrap_completion(lambda **kw: None, Memory("s"), clear_tool_uses="yes")  # type: ignore[arg-type]


def _anthropic_sse(summary: str, text: str) -> bytes:
    """A streamed Claude reply that compacts first: a compaction block, then the text."""
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_s",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 100, "output_tokens": 1},
            },
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "compaction", "content": "", "signature": "sig_s"},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "compaction_delta", "content": summary[:10]},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "compaction_delta", "content": summary[10:]},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 1},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 10},
        },
        {"type": "message_stop"},
    ]
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def test_a_compaction_in_a_streamed_claude_reply_is_kept(keys: None) -> None:
    import litellm

    summary = "The user asked about order A0, code 1000."
    memory = Memory("s", reducer=reducer())
    completion = wrap_completion(litellm.completion, memory)
    bodies: list[dict[str, Any]] = []
    answers = [
        httpx.Response(200, json=anthropic_message("A0 noted.")),
        httpx.Response(
            200,
            content=_anthropic_sse(summary, "Streamed."),
            headers={"content-type": "text/event-stream"},
        ),
        httpx.Response(200, json=anthropic_message("Ok.")),
    ]

    def anthropic(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return answers.pop(0)

    with respx.mock(assert_all_mocked=True) as router:
        router.post(ANTHROPIC_URL).mock(side_effect=anthropic)
        completion(model=CLAUDE, messages=[_user("order A0?")])
        stream = completion(model=CLAUDE, messages=[_user("more?")], stream=True)
        assert "".join(c.choices[0].delta.content or "" for c in stream) == "Streamed."
        completion(model=CLAUDE, messages=[_user("last")])
    stored = memory.history()[3]
    assert stored["content"] == "Streamed."
    [block] = stored["provider_specific_fields"]["compaction_blocks"]
    assert block["type"] == "compaction" and block["content"] == summary
    sent = json.dumps(bodies[-1])
    assert summary in sent  # back to Claude, in its turn
    assert memory.summary is not None  # and its twin


def _chunk(content: str | None = None, **fields: Any) -> dict[str, Any]:
    delta: dict[str, Any] = {"content": content}
    if fields:
        delta["provider_specific_fields"] = fields
    return {"choices": [{"index": 0, "delta": delta}]}


@pytest.mark.parametrize("grown_by_litellm", [True, False], ids=["litellm-1.110", "litellm-1.108"])
def test_a_streamed_compaction_block_is_whole_however_litellm_streams_it(
    grown_by_litellm: bool,
) -> None:
    from summem.wrappers.stream import StreamAccumulator

    start = {"type": "compaction", "content": ""}
    pieces = ["The user asked ", "about order A0."]
    acc = StreamAccumulator()
    acc.feed(_chunk(compaction_blocks=[start], compaction_start={"type": "compaction"}))
    so_far = ""
    for piece in pieces:
        so_far += piece
        fields: dict[str, Any] = {
            "compaction_delta": {"type": "compaction_delta", "content": piece}
        }
        if grown_by_litellm:  # 1.110 repeats the list, its last block grown by the delta
            fields["compaction_blocks"] = [{"type": "compaction", "content": so_far}]
        acc.feed(_chunk(**fields))
    acc.feed(_chunk("Streamed."))
    message = acc.message()
    assert message["content"] == "Streamed."
    [block] = message["provider_specific_fields"]["compaction_blocks"]
    assert block == {"type": "compaction", "content": "The user asked about order A0."}
    assert start == {"type": "compaction", "content": ""}  # litellm's own dict left alone
