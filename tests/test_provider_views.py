"""Views summem builds are accepted by OpenAI, Anthropic and Gemini, as litellm sends them.

Each scenario reduces a conversation with :class:`SummarizationReducer` (extractive summarizer,
message budget, so the cut lands exactly where the scenario says), sends ``result.messages()``
through the real ``litellm.completion`` code, and captures, at the transport (respx), the
request litellm sent to each provider's real URL. The captured body is checked against that
provider's rules (``tests/provider_rules.py``); the reply is a valid response in the
provider's own format, so litellm's parsing runs too. Nothing reaches the network.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from summem.reducers.summarization import SummarizationReducer
from summem.summarizers.extractive.summarizer import ExtractiveSummarizer
from tests.fakes.counters import WordCounter
from tests.fakes.providers import Captured, mock_providers
from tests.provider_rules import all_strings, check_anthropic, check_gemini, check_openai

OPENAI = "gpt-4o-mini"
ANTHROPIC = "anthropic/claude-3-5-haiku-20241022"
GEMINI_15 = "gemini/gemini-1.5-flash"  # not in litellm 1.106's model map: no system_instruction
GEMINI_25 = "gemini/gemini-2.5-flash"
MODELS = [OPENAI, ANTHROPIC, GEMINI_15, GEMINI_25]
SYSTEM = "You are the support assistant of Parcelly, a parcel delivery company."

# -- conversations --------------------------------------------------------------------------


def sys() -> dict[str, Any]:
    return {"role": "system", "content": SYSTEM}


def u(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def a(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def calls(*names: tuple[str, str], text: str | None = None) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": text,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps({"order_id": "PX-20431"})},
            }
            for call_id, name in names
        ],
    }


def res(call_id: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": json.dumps(payload)}


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name} for an order",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string"}},
                "required": ["order_id"],
            },
        },
    }
    for name in ("lookup_order", "track_parcel", "refund_status")
]

OPENING = [
    u("Hi, I'm Dana Whitfield. My order PX-20431 still hasn't arrived."),
    a("Sorry about that, Dana. Which address was it going to?"),
    u("14 Larch Lane, Bristol BS6 7QT. It was due on March 3."),
    a("Thanks. I'll check the order now."),
]
CHECK = [
    calls(("call_order", "lookup_order"), ("call_track", "track_parcel")),
    res("call_track", {"carrier": "DHL", "last_scan": "Bristol depot"}),
    res("call_order", {"status": "shipped", "eta": "2024-03-03"}),
]
FOLLOW_UP = [
    a("It shipped with DHL and was last scanned at the Bristol depot."),
    u("Can I get a refund if it doesn't come by Friday?"),
    a("Yes: if it hasn't arrived by Friday I'll refund the full 48.90 GBP."),
    u("Great, please email me rather than call."),
]


@dataclass
class Scenario:
    """A conversation, the budget that cuts it where wanted, and what the view must look like."""

    name: str
    messages: list[dict[str, Any]]
    threshold: int
    target: int
    first_after_summary: str  # the first message after the summary: a role, or "tool_call"
    options: dict[str, Any] = field(default_factory=dict)

    def reduce(self, **overrides: Any) -> list[dict[str, Any]]:
        reducer = SummarizationReducer(
            ExtractiveSummarizer(),
            threshold_messages=self.threshold,
            target_messages=self.target,
            token_counter=WordCounter(),
            summary_max_tokens=40,
            **{**self.options, **overrides},
        )
        result = reducer.reduce(self.messages)
        assert result.reduced and result.summary is not None
        view = result.view
        start = 2 if view[0].is_system else 1
        assert view[start - 1].is_summary
        first = view[start]
        assert ("tool_call" if first.tool_calls else first.role) == self.first_after_summary
        return result.messages()


SCENARIOS = [
    # The summary followed by a user turn: litellm merges the two user turns for Anthropic
    # and Gemini, which keeps the roles alternating.
    Scenario("summary_then_user", [sys(), *OPENING, *CHECK, *FOLLOW_UP], 11, 5, "user"),
    # The summary followed directly by an assistant text turn.
    Scenario("summary_then_assistant", [sys(), *OPENING, *CHECK, *FOLLOW_UP], 11, 4, "assistant"),
    # A tool-call group right at the cut, kept whole: the summary is followed by the call.
    Scenario("tool_group_kept_at_cut", [sys(), *OPENING, *CHECK, *FOLLOW_UP], 11, 9, "tool_call"),
    # The cut would fall inside the group (between the call and its results): it moves past
    # the whole group, and the results go into the summary with their call.
    Scenario(
        "tool_group_evicted_at_cut", [sys(), *OPENING, *CHECK, *FOLLOW_UP], 11, 8, "assistant"
    ),
    # Three parallel calls, results out of order, after the summary.
    Scenario(
        "parallel_tool_calls",
        [
            sys(),
            *OPENING,
            u("Also check the refund I was promised last time."),
            calls(
                ("p1", "lookup_order"),
                ("p2", "track_parcel"),
                ("p3", "refund_status"),
                text="Checking all three now.",
            ),
            res("p3", {"refund": "pending", "amount": "48.90 GBP"}),
            res("p1", {"status": "shipped"}),
            res("p2", {"carrier": "DHL"}),
            a("Shipped with DHL; the 48.90 GBP refund is pending."),
            u("Thanks."),
        ],
        11,
        9,
        "user",
    ),
    # No system message: the summary opens the conversation.
    Scenario("no_system_message", [*OPENING, *CHECK, *FOLLOW_UP], 10, 6, "assistant"),
]
SCENARIO = {s.name: s for s in SCENARIOS}

# -- provider mocks -------------------------------------------------------------------------


@pytest.fixture
def providers() -> Iterator[Captured]:
    with mock_providers(gemini_models=("gemini-1.5-flash", "gemini-2.5-flash")) as captured:
        yield captured


@pytest.fixture(scope="module")
def litellm() -> Any:
    import litellm

    return litellm


def send(litellm: Any, model: str, messages: list[dict[str, Any]]) -> Any:
    has_tools = any(m.get("tool_calls") for m in messages)
    kwargs: dict[str, Any] = {"tools": TOOLS} if has_tools else {}
    return litellm.completion(
        model=model,
        messages=messages,
        api_key="test-key-not-real",
        num_retries=0,
        **kwargs,
    )


CHECKS = {"openai": check_openai, "anthropic": check_anthropic, "gemini": check_gemini}

# -- the conformance matrix -----------------------------------------------------------------


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_default_view_is_accepted_by_every_provider(
    scenario: Scenario, model: str, providers: Captured, litellm: Any
) -> None:
    view = scenario.reduce()
    reply = send(litellm, model, view)
    provider, request, body = providers.last()
    assert reply.choices[0].message.content == f"ok from {provider}"
    assert CHECKS[provider](body) == []
    # Nothing was lost on the way: every text of the view reached the provider (Gemini gets
    # JSON tool results as objects).
    sent = list(all_strings(body))
    responses = [
        p["function_response"]["response"]
        for c in body.get("contents", [])
        for p in c["parts"]
        if "function_response" in p
    ]
    for message in view:
        text = message.get("content")
        if provider == "gemini" and message["role"] == "tool":
            assert json.loads(str(text)) in responses, f"tool result lost: {text!r}"
        elif isinstance(text, str) and text:
            assert any(text in s for s in sent), f"{message['role']} text lost: {text[:60]!r}"
    assert len(providers.requests) == 1
    auth = {
        "openai": ("authorization", "Bearer test-key-not-real"),
        "anthropic": ("x-api-key", "test-key-not-real"),
        "gemini": ("x-goog-api-key", "test-key-not-real"),
    }[provider]
    assert request.headers[auth[0]] == auth[1]


def summary_text(view: list[dict[str, Any]]) -> str:
    (summary,) = [m for m in view if m["content"] and "Summary of the earlier" in m["content"]]
    return str(summary["content"])


def test_openai_gets_the_view_unchanged(providers: Captured, litellm: Any) -> None:
    view = SCENARIO["parallel_tool_calls"].reduce()
    send(litellm, OPENAI, view)
    _, _, body = providers.last()
    expected = [{k: v for k, v in m.items() if v is not None} for m in view]
    assert body["messages"] == expected


def test_anthropic_system_goes_top_level_and_summary_opens_as_user(
    providers: Captured, litellm: Any
) -> None:
    view = SCENARIO["summary_then_user"].reduce()
    send(litellm, ANTHROPIC, view)
    _, _, body = providers.last()
    assert body["system"] == [{"type": "text", "text": SYSTEM}]
    first = body["messages"][0]
    texts = [b["text"] for b in first["content"]]
    # The summary and the user turn after it were merged into one user message, in order.
    assert first["role"] == "user" and texts == [summary_text(view), view[2]["content"]]


def test_anthropic_tool_results_follow_their_calls(providers: Captured, litellm: Any) -> None:
    view = SCENARIO["parallel_tool_calls"].reduce()
    send(litellm, ANTHROPIC, view)
    _, _, body = providers.last()
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "user"]
    call_turn, result_turn = body["messages"][1], body["messages"][2]
    assert [b["type"] for b in call_turn["content"]] == ["text", *["tool_use"] * 3]
    assert [b["tool_use_id"] for b in result_turn["content"]] == ["p3", "p1", "p2"]


@pytest.mark.parametrize("model", [GEMINI_15, GEMINI_25])
def test_gemini_system_text_placement(model: str, providers: Captured, litellm: Any) -> None:
    view = SCENARIO["summary_then_assistant"].reduce()
    send(litellm, model, view)
    _, _, body = providers.last()
    first_texts = [p.get("text") for p in body["contents"][0]["parts"]]
    if model == GEMINI_25:
        assert body["system_instruction"] == {"parts": [{"text": SYSTEM}]}
        assert first_texts == [summary_text(view)]
    else:
        # litellm no longer knows gemini-1.5-flash (Google retired it), so it assumes no
        # system_instruction support and sends the system text as the first user part.
        assert "system_instruction" not in body
        assert first_texts == [SYSTEM, summary_text(view)]


def test_gemini_pairs_parallel_calls_with_responses(providers: Captured, litellm: Any) -> None:
    view = SCENARIO["parallel_tool_calls"].reduce()
    send(litellm, GEMINI_25, view)
    _, _, body = providers.last()
    roles = [c["role"] for c in body["contents"]]
    assert roles[:3] == ["user", "model", "user"]
    names = [p["function_response"]["name"] for p in body["contents"][2]["parts"]]
    assert names == ["refund_status", "lookup_order", "track_parcel"]


# -- why the default is a user message after the system message -----------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"summary_role": "system"},
        {"summary_role": "developer"},
        {"summary_role": "assistant"},
        {"summary_placement": "system_suffix"},
    ],
    ids=["system_role", "developer_role", "assistant_role", "system_suffix"],
)
@pytest.mark.parametrize("model", [ANTHROPIC, GEMINI_25])
def test_alternatives_start_the_conversation_with_the_assistant(
    options: dict[str, Any], model: str, providers: Captured, litellm: Any
) -> None:
    """Any other role or placement lets the turns open with the assistant when the kept
    tail does; Anthropic and Gemini reject a conversation that does not start with the user."""
    view = SCENARIO["summary_then_assistant"].reduce(**options)
    send(litellm, model, view)
    provider, _, body = providers.last()
    problems = CHECKS[provider](body)
    assert any("first" in p and "user role" in p for p in problems), problems


@pytest.mark.parametrize("model", [ANTHROPIC, GEMINI_25])
def test_system_suffix_is_safe_when_cuts_fall_before_user_turns(
    model: str, providers: Captured, litellm: Any
) -> None:
    base = SCENARIO["summary_then_assistant"]
    scenario = Scenario("suffix", base.messages, base.threshold, base.target, "user")
    view = scenario.reduce(summary_placement="system_suffix", cut_before_user=True)
    assert [m["role"] for m in view[:2]] == ["system", "user"]
    send(litellm, model, view)
    provider, _, body = providers.last()
    assert CHECKS[provider](body) == []
    system = body.get("system") or body.get("system_instruction")
    assert "Summary of the earlier conversation" in json.dumps(system)


# -- replies with no content: a refusal, an audio reply -------------------------------------

REFUSAL = "I can't share another customer's address."
REPLIES_WITHOUT_CONTENT: dict[str, tuple[dict[str, Any], str]] = {
    "refusal": ({"role": "assistant", "content": None, "refusal": REFUSAL}, REFUSAL),
    "audio": (
        {
            "role": "assistant",
            "content": None,
            "audio": {"id": "audio_1", "expires_at": 1700000000, "transcript": "It shipped."},
        },
        "It shipped.",
    ),
}


def assistant_texts(provider: str, body: dict[str, Any]) -> list[str]:
    if provider == "gemini":
        return [
            str(p.get("text"))
            for c in body["contents"]
            if c["role"] == "model"
            for p in c["parts"]
            if "text" in p
        ]
    out: list[str] = []
    for m in body["messages"]:
        if m["role"] != "assistant":
            continue
        content = m.get("content")
        if isinstance(content, list):
            out.extend(str(b.get("text")) for b in content if b.get("type") == "text")
        elif content:
            out.append(str(content))
    return out


@pytest.mark.parametrize("kind", sorted(REPLIES_WITHOUT_CONTENT))
@pytest.mark.parametrize("model", MODELS)
def test_a_reply_without_content_survives_the_litellm_wrapper(
    kind: str, model: str, providers: Captured, litellm: Any
) -> None:
    from summem import Memory, wrap_completion

    reply, text = REPLIES_WITHOUT_CONTENT[kind]
    memory = Memory("s", store="memory://")
    memory.extend([sys(), u("Where does Dana Whitfield live?"), reply])
    completion = wrap_completion(litellm.completion, memory)
    completion(
        model=model,
        messages=[u("Then when does my parcel arrive?")],
        api_key="test-key-not-real",
        num_retries=0,
    )
    provider, _, body = providers.last()
    assert CHECKS[provider](body) == []
    if provider == "openai":  # OpenAI takes the fields: the turn goes as stored
        assert body["messages"][2] == {k: v for k, v in reply.items() if v is not None}
    else:  # the turn is there, with its text
        assert assistant_texts(provider, body) == [text]
    assert memory.history()[1] == reply  # stored as it was


def test_without_the_wrapper_litellm_drops_such_a_turn(providers: Captured, litellm: Any) -> None:
    """Why the wrapper gives the turn its text: litellm sends Anthropic no assistant turn."""
    reply, _ = REPLIES_WITHOUT_CONTENT["refusal"]
    send(litellm, ANTHROPIC, [u("Where does Dana live?"), reply, u("Then when?")])
    _, _, body = providers.last()
    assert [m["role"] for m in body["messages"]] == ["user", "user"]


@pytest.mark.parametrize("model", [ANTHROPIC, GEMINI_25])
def test_an_audio_reply_stored_by_its_id_is_sent_with_its_kept_transcript(
    model: str, providers: Captured, litellm: Any
) -> None:
    from summem import Memory, wrap_completion
    from summem.messages import parse_message

    # as a wrapper records an audio reply: the id in the message, the transcript in its meta
    reply = parse_message({"role": "assistant", "content": None, "audio": {"id": "audio_9"}})
    reply = reply.with_meta(audio={"transcript": "It ships on Friday.", "expires_at": 1})
    memory = Memory("s", store="memory://")
    memory.extend([u("When does it ship?"), reply])
    completion = wrap_completion(litellm.completion, memory)
    completion(model=model, messages=[u("Thanks.")], api_key="test-key-not-real", num_retries=0)
    provider, _, body = providers.last()
    assert CHECKS[provider](body) == []
    assert assistant_texts(provider, body) == ["It ships on Friday."]
    assert memory.history()[1] == {"role": "assistant", "content": None, "audio": {"id": "audio_9"}}
