"""Views every chat template accepts: placements and ``ViewStyle``, rendered with jinja2.

The templates in ``chat_templates/`` are Gemma 3's, Mistral v0.3's and Llama 3's, rendered the
way ``transformers`` renders them (a sandboxed environment, ``raise_exception``). A template
that raises means the server would answer 500 ("Conversation roles must alternate").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jinja2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jinja2.sandbox import ImmutableSandboxedEnvironment

from summem import Memory, ViewStyle
from summem.conversation import boundaries
from summem.messages import parse_messages
from summem.reducers.style import PLACEHOLDER_ASSISTANT, PLACEHOLDER_USER, apply_style
from summem.reducers.summarization import SummarizationReducer
from summem.reducers.view import PLACEMENTS, SUMMARY_END, render_view, split_view
from tests.fakes.counters import WordCounter
from tests.fakes.messages import a, call, res, sys, u
from tests.fakes.summarizers import FakeSummarizer

TEMPLATES = Path(__file__).with_name("chat_templates")


class TemplateRaised(Exception):
    pass


def _raise(message: str) -> None:
    raise TemplateRaised(message)


def render(name: str, messages: list[dict[str, Any]]) -> str:
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"]
    )
    env.globals["raise_exception"] = _raise
    env.filters["tojson"] = lambda value, **kw: json.dumps(value, **kw)
    template = env.from_string((TEMPLATES / f"{name}.jinja").read_text(encoding="utf-8"))
    return template.render(
        messages=messages, bos_token="<s>", eos_token="</s>", add_generation_prompt=True
    )


def nine(n: int) -> str:
    """A 9-character tool call id (Mistral's template requires them)."""
    return f"call{n:05d}"


def reducer(placement: str = "after_system") -> SummarizationReducer:
    return SummarizationReducer(
        FakeSummarizer(reply="the user ordered BW-1"),
        threshold_tokens=60,
        target_tokens=35,
        summary_max_tokens=8,
        token_counter=WordCounter(),
        summary_placement=placement,  # type: ignore[arg-type]
    )


def test_the_default_view_breaks_alternating_templates_and_strict_fixes_it() -> None:
    memory = Memory("t", reducer=reducer())
    memory.add(sys("be helpful"))
    for i in range(8):
        memory.extend([u(f"question {i} about the order"), a(f"answer {i} about the order")])
    memory.add(u("and now?"))
    assert memory.summary is not None
    view = memory.messages()
    assert [m["role"] for m in view[:3]] == ["system", "user", "assistant"] or view[2][
        "role"
    ] == "user"
    if view[2]["role"] == "user":
        with pytest.raises(TemplateRaised, match="alternate"):
            render("gemma3", view)
    for name in ("gemma3", "mistral-v0.3", "llama3"):
        text = render(name, memory.messages(style=ViewStyle.strict()))
        assert "the user ordered BW-1" in text and "and now?" in text


def test_failed_turns_leave_two_user_messages_and_the_strict_view_still_renders() -> None:
    memory = Memory("t", reducer=reducer())
    memory.extend([sys("be helpful"), u("first"), a("reply"), u("retry 1"), u("retry 2")])
    with pytest.raises(TemplateRaised):
        render("mistral-v0.3", memory.messages())
    for name in ("gemma3", "mistral-v0.3", "llama3"):
        text = render(name, memory.messages(style=ViewStyle.strict()))
        assert "retry 1" in text and "retry 2" in text


def test_first_user_placement_merges_the_summary_and_round_trips() -> None:
    memory = Memory("t", reducer=reducer("first_user"))
    memory.add(sys("be helpful"))
    for i in range(8):
        memory.extend([u(f"question {i} about the order"), a(f"answer {i} about the order")])
    assert memory.summary is not None
    memory.add(u("the next question"))
    view = memory.messages()
    assert view[0]["role"] == "system" and view[1]["role"] == "user"
    assert view[1]["content"].startswith("Summary of the earlier conversation:")
    assert [m["role"] for m in view[1:]] == ["user", "assistant"] * (len(view[1:]) // 2) + [
        "user"
    ] * (len(view[1:]) % 2)
    for name in ("gemma3", "mistral-v0.3", "llama3"):
        render(name, view)
    parts = split_view(parse_messages(view))
    assert parts.summary is not None and "the user ordered BW-1" in parts.summary.text
    if SUMMARY_END in view[1]["content"]:
        assert parts.placement == "first_user"
        assert parts.conversation[0].text == view[1]["content"].split(SUMMARY_END)[1]
    # the pure reducer takes the rendered view back without keeping the summary as a turn
    again = reducer("first_user").reduce(view)
    texts = [m["content"] for m in again.messages()]
    assert sum("the user ordered BW-1" in text for text in texts) == 1
    assert (
        texts.count("the next question")
        + sum(text.endswith(SUMMARY_END + "the next question") for text in texts)
        == 1
    )


def test_first_user_merges_only_into_a_leading_user_message() -> None:
    summary = parse_messages([u("Summary of the earlier conversation:\nS")])[0]
    msgs = parse_messages([sys(), a("an assistant turn first"), u("then the user")])
    out = render_view(msgs[0], summary, msgs[1:], placement="first_user")
    assert [m["role"] for m in out] == ["system", "user", "assistant", "user"]
    assert out[1]["content"] == summary.text and out[3]["content"] == "then the user"
    msgs = parse_messages([sys(), u("the user first")])
    out = render_view(msgs[0], summary, msgs[1:], placement="first_user")
    assert [m["role"] for m in out] == ["system", "user"]
    assert out[1]["content"] == summary.text + SUMMARY_END + "the user first"


def test_compat_sends_what_llama_cpp_accepts() -> None:
    view: list[dict[str, Any]] = [
        {"role": "developer", "content": "be brief"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "image_url", "image_url": {"url": "x"}},
            ],
        },
        {"role": "assistant", "content": None, "tool_calls": [call(nine(1))["tool_calls"][0]]},
        res(nine(1), "sunny"),
    ]
    out = apply_style(view, ViewStyle.compat())
    assert out[0]["role"] == "system"
    assert out[1]["content"] == "hi\n[image]"
    assert out[2]["content"] == "" and out[2]["tool_calls"]
    assert view[2]["content"] is None  # the input is not changed


def test_tools_as_text_keeps_every_call_and_result() -> None:
    view = [u("weather?"), call("c1", "c2"), res("c2", "rain"), res("c1", "sun"), a("mixed")]
    out = apply_style(view, ViewStyle.strict())
    text = "\n".join(m["content"] for m in out)
    assert "[called f({})]" in text and "[f returned] rain" in text and "[f returned] sun" in text
    assert [m["role"] for m in out] == ["user", "assistant", "user", "assistant"]


def test_placeholders_only_where_merging_cannot_help() -> None:
    out = apply_style(
        [a("starts with the assistant"), u("then the user")], ViewStyle(alternating=True)
    )
    assert out[0] == {"role": "user", "content": PLACEHOLDER_USER}
    tools = [u("q"), call(nine(1)), res(nine(1)), u("q again")]
    out = apply_style(tools, ViewStyle(alternating=True))
    assert {"role": "assistant", "content": PLACEHOLDER_ASSISTANT} in out
    render("mistral-v0.3", out)
    # a view whose first turn is a tool call (its user message evicted): a user placeholder first
    out = apply_style([sys("s"), call(nine(2)), res(nine(2)), u("q")], ViewStyle(alternating=True))
    assert [m["role"] for m in out[:3]] == ["system", "user", "assistant"]
    assert out[1] == {"role": "user", "content": PLACEHOLDER_USER} and out[2]["tool_calls"]
    render("mistral-v0.3", out)


# -- property: any conversation, any cut, every style renders on every template --------------


@st.composite
def conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [sys("system prompt")]
    n_calls = 0
    for i in range(draw(st.integers(1, 14))):
        kind = draw(st.sampled_from(["turn", "turn", "tools", "failed", "assistant_only"]))
        if kind in ("turn", "failed"):
            out.append(u(f"user says {i}"))
            if kind == "turn":
                out.append(a(f"assistant says {i}"))
        elif kind == "assistant_only":
            out.append(a(f"assistant adds {i}"))
        else:
            out.append(u(f"user asks tools {i}"))
            ids = [nine(n_calls + j) for j in range(draw(st.integers(1, 3)))]
            n_calls += len(ids)
            out.append(call(*ids))
            for call_id in reversed(ids):
                out.append(res(call_id, f"result {call_id}"))
            if draw(st.booleans()):
                out.append(a(f"assistant answers {i}"))
    return out


@settings(deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(conversations(), st.data())
def test_strict_views_render_on_every_template(
    history: list[dict[str, Any]], data: st.DataObject
) -> None:
    msgs = parse_messages([*history, u("and the request")])  # a request ends with the user
    system, conversation = msgs[0], msgs[1:]
    starts = [s for s in boundaries(conversation).starts]
    cut = data.draw(st.sampled_from(starts))
    with_summary = data.draw(st.booleans())
    placement = data.draw(st.sampled_from(PLACEMENTS))
    summary = parse_messages([u("Summary of the earlier conversation:\nearlier facts")])[0]
    view = render_view(
        system, summary if with_summary else None, conversation[cut:], placement=placement
    )
    strict = apply_style(view, ViewStyle.strict())
    rendered = {name: render(name, strict) for name in ("gemma3", "mistral-v0.3", "llama3")}
    for message in conversation[cut:]:
        if message.text:
            assert all(message.text in text for text in rendered.values())
    if with_summary:
        assert all("earlier facts" in text for text in rendered.values())
    # alternation that keeps native tool messages renders on Mistral's template too
    keep_tools = apply_style(view, ViewStyle(alternating=True, empty_null_content=True))
    render("mistral-v0.3", keep_tools)
    render("llama3", keep_tools)


def test_jinja2_is_the_real_renderer() -> None:
    with pytest.raises(jinja2.exceptions.SecurityError):
        ImmutableSandboxedEnvironment().from_string("{{ ''.__class__.__mro__ }}").render()


REFUSED = {"role": "assistant", "content": None, "refusal": "I can't help with that."}
AUDIO = {
    "role": "assistant",
    "content": None,
    "audio": {"id": "audio_1", "expires_at": 1700000000, "transcript": "Hello there."},
}


@pytest.mark.parametrize(
    ("reply", "text"),
    [
        (REFUSED, "I can't help with that."),
        ({**REFUSED, "content": ""}, "I can't help with that."),
        (AUDIO, "Hello there."),
        ({"role": "assistant", "content": None, "audio": {"id": "audio_2"}}, "[audio reply]"),
    ],
)
def test_reply_as_text_gives_a_refusal_or_audio_reply_its_text(
    reply: dict[str, Any], text: str
) -> None:
    view = [u("hi"), reply, u("and now?")]
    out = apply_style(view, ViewStyle(reply_as_text=True))
    assert out[1] == {**reply, "content": text}  # the refusal and the audio stay
    assert view[1] == reply  # the dicts given are not changed
    assert apply_style(view, ViewStyle.compat())[1]["content"] == text
    assert apply_style(view, ViewStyle.strict())[1]["content"] == text
    assert apply_style(view, ViewStyle())[1] == reply  # plain: as stored


@pytest.mark.parametrize(
    "reply",
    [
        {**REFUSED, "content": "Sorry."},  # it has text already
        {**REFUSED, "tool_calls": [call("c1")["tool_calls"][0]]},
        {"role": "assistant", "content": None, "refusal": None, "audio": None},
        {"role": "user", "content": "x", "refusal": "not a reply"},
    ],
)
def test_reply_as_text_leaves_other_messages_alone(reply: dict[str, Any]) -> None:
    assert apply_style([reply], ViewStyle(reply_as_text=True)) == [reply]


def test_a_stored_refusal_survives_the_strict_view_and_is_stored_unchanged() -> None:
    memory = Memory("s", store="memory://", style=ViewStyle.strict())
    memory.extend([u("hi"), REFUSED, u("and now?")])
    assert [m["content"] for m in memory.messages()] == ["hi", REFUSED["refusal"], "and now?"]
    assert memory.history()[1] == REFUSED


def test_reply_as_text_finds_a_transcript_kept_in_meta() -> None:
    from summem.messages import parse_message

    reply = parse_message({"role": "assistant", "content": None, "audio": {"id": "audio_9"}})
    memory = Memory("s", store="memory://", style=ViewStyle.compat())
    memory.extend([u("hi"), reply.with_meta(audio={"transcript": "Hello."}), u("ok")])
    assert [m["content"] for m in memory.messages()] == ["hi", "Hello.", "ok"]
    assert memory.history()[1] == {"role": "assistant", "content": None, "audio": {"id": "audio_9"}}
    # without a kept transcript: a placeholder, so the turn is not dropped
    other = Memory("t", store="memory://", style=ViewStyle.compat())
    other.extend([u("hi"), reply, u("ok")])
    assert other.messages()[1]["content"] == "[audio reply]"


def test_expired_audio_is_sent_as_its_transcript_and_the_rest_as_it_is() -> None:
    from summem.messages import Message
    from summem.reducers.style import AUDIO_PLACEHOLDER, expired_audio_as_text

    def reply(audio_id: str, meta: dict[str, Any], content: str | None = None) -> Message:
        msg = Message.from_openai(
            {"role": "assistant", "content": content, "audio": {"id": audio_id}}
        )
        return msg.with_meta(audio=meta)

    messages = [
        Message.from_openai({"role": "user", "content": "hi"}),
        reply("a1", {"expires_at": 100, "transcript": "said"}),
        reply("a2", {"expires_at": 100}),
        reply("a3", {"expires_at": 100, "transcript": "t"}, content="typed too"),
        reply("a4", {"expires_at": 101, "transcript": "later"}),
        reply("a5", {"expires_at": True, "transcript": "not a time"}),
        reply("a6", {"transcript": "no expiry"}),
    ]
    sent = [m.to_openai() for m in messages]
    out = expired_audio_as_text(sent, messages, 100.0)
    assert out[0] == sent[0]
    assert out[1] == {"role": "assistant", "content": "said"}
    assert out[2] == {"role": "assistant", "content": AUDIO_PLACEHOLDER}
    assert out[3] == {"role": "assistant", "content": "typed too"}
    assert out[4:] == sent[4:]  # not yet expired, or no time to compare
    assert sent[1]["audio"] == {"id": "a1"}  # the dicts given are not changed
    assert expired_audio_as_text(sent, messages, 99.0) == sent
