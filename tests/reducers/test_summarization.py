import copy
from typing import Any

import pytest

from summem.errors import ConfigurationError, ReductionError, SummarizationError
from summem.messages import parse_messages
from summem.reducers.summarization import SummarizationReducer
from summem.summarizers.base import summary_limit
from tests.fakes.counters import WordCounter, words
from tests.fakes.messages import a, call, res, sys, u
from tests.fakes.summarizers import FakeSummarizer, StepSummarizer, failing


def reducer(summarizer=None, **kw):
    kw.setdefault("threshold_tokens", 100)
    kw.setdefault("target_tokens", 60)
    kw.setdefault("summary_max_tokens", 10)
    return SummarizationReducer(summarizer or FakeSummarizer(), token_counter=WordCounter(), **kw)


def convo(n: int) -> list[dict[str, object]]:
    return [sys()] + [
        u(words(7, f"t{i}_")) if i % 2 == 0 else a(words(7, f"t{i}_")) for i in range(n)
    ]


def test_below_threshold_nothing_happens() -> None:
    fake = FakeSummarizer()
    result = reducer(fake).reduce(convo(5))
    assert not result.reduced and fake.requests == []
    assert len(result.view) == 6


def test_reduces_to_target_with_one_summary_after_system() -> None:
    fake = FakeSummarizer(reply="the gist")
    msgs = convo(12)  # 3 + 12 * 10 = 123 tokens
    original = copy.deepcopy(msgs)
    result = reducer(fake).reduce(msgs)
    assert msgs == original
    assert result.reduced and result.tokens_after <= 60 < 100 < result.tokens_before
    out = result.messages()
    assert out[0] == sys()
    assert out[1] == {"role": "user", "content": "Summary of the earlier conversation:\nthe gist"}
    info = result.view[1].summary_info
    assert info is not None and info.summarizer == "fake" and info.watermark == len(result.evicted)
    assert info.covered_ids == tuple(m.id for m in result.evicted)
    assert fake.seen == result.evicted
    assert result.view[2:] == [m for m in result.view[2:]]


def test_previous_summary_is_replaced_not_treated_as_conversation() -> None:
    fake = FakeSummarizer()
    r = reducer(fake)
    first = r.reduce(convo(12))
    view = list(first.view) + parse_messages([u(words(80, "late"))])
    second = r.reduce(view)
    assert second.reduced
    assert fake.requests[1].previous_summary == "S1"
    assert all(not m.is_summary for m in fake.requests[1].messages)
    assert sum(m.is_summary for m in second.view) == 1
    info = second.summary.summary_info if second.summary else None
    assert first.summary is not None
    assert info is not None and info.previous_summary_id == first.summary.id
    assert info.watermark == len(first.evicted) + len(second.evicted)


def test_summary_recognised_from_plain_dicts_by_its_prefix() -> None:
    fake = FakeSummarizer()
    r = reducer(fake)
    first = r.reduce(convo(12)).messages()
    r.reduce([*first, u(words(80, "more"))])
    assert fake.requests[1].previous_summary == "S1"


@pytest.mark.parametrize("fail_on_error", [True, False])
def test_failure_changes_nothing(fail_on_error: bool) -> None:
    r = reducer(failing(), fail_on_error=fail_on_error)
    msgs = convo(12)
    if fail_on_error:
        with pytest.raises(SummarizationError, match="boom"):
            r.reduce(msgs)
        return
    result = r.reduce(msgs)
    assert not result.reduced and isinstance(result.error, ReductionError)
    assert result.messages() == msgs
    assert all("boom" not in m.text for m in result.view)


def test_unexpected_summarizer_exception_is_wrapped() -> None:
    r = reducer(failing(RuntimeError("bug")))
    with pytest.raises(SummarizationError, match="bug") as info:
        r.reduce(convo(12))
    assert isinstance(info.value.__cause__, RuntimeError)


@pytest.mark.parametrize("reply", ["", "   ", words(50, "long")])
def test_invalid_summary_is_never_committed(reply: str) -> None:
    r = reducer(FakeSummarizer(reply=reply), fail_on_error=False)
    result = r.reduce(convo(12))
    assert not result.reduced and result.error is not None
    assert result.messages() == convo(12) or len(result.view) == 13


def test_tool_group_is_not_split_at_the_cut() -> None:
    msgs = [
        sys(),
        u(words(20)),
        call("c1", "c2"),
        res("c2", words(30)),
        res("c1", words(30)),
        u("q"),
    ]
    result = reducer(threshold_tokens=80, target_tokens=40).reduce(msgs)
    roles = [m["role"] for m in result.messages()]
    assert roles[:2] == ["system", "user"]
    if "tool" in roles:
        assert "assistant" in roles[: roles.index("tool")]


async def test_sync_and_async_give_the_same_view() -> None:
    stepper = StepSummarizer()
    r = reducer(stepper)
    sync = r.reduce(convo(12))
    asyn = await r.areduce(convo(12))
    assert sync.messages() == asyn.messages()
    assert stepper.step.ran == ["sync", "async"]
    assert sync.summarizer_calls == 1


def test_system_message_rules() -> None:
    msgs = [sys("A"), u("hi"), sys("A"), a("yo"), sys("B"), u("q")]
    out = reducer().reduce(msgs).messages()
    assert out[0] == sys("B")
    assert [m["role"] for m in out].count("system") == 1


def test_message_budget() -> None:
    fake = FakeSummarizer()
    r = SummarizationReducer(
        fake, threshold_messages=10, target_messages=6, token_counter=WordCounter()
    )
    result = r.reduce(convo(12))
    assert result.reduced and len(result.view) <= 6


def test_summary_role_and_placement() -> None:
    r = reducer(
        FakeSummarizer(reply="gist"), summary_role="system", summary_placement="system_suffix"
    )
    out = r.reduce(convo(12)).messages()
    assert out[0]["role"] == "system" and out[0]["content"].endswith("gist")
    assert out[1]["role"] != "system"


@pytest.mark.parametrize(
    ("role", "placement"),
    [
        ("user", "after_system"),
        ("assistant", "after_system"),
        ("system", "after_system"),
        ("developer", "after_system"),
        ("user", "system_suffix"),
    ],
)
def test_plain_dict_round_trips_keep_the_system_prompt_and_one_summary(role, placement) -> None:
    # The pure-function loop: reduce, send result.messages(), append, reduce again.
    fake = FakeSummarizer()
    r = reducer(fake, summary_role=role, summary_placement=placement)
    view = convo(12)
    for turn in range(3):
        view = r.reduce([*view, u(words(80, f"more{turn}_"))]).messages()
    assert len(fake.requests) == 3
    # Each summary integrated the previous one instead of leaving it behind.
    assert [q.previous_summary for q in fake.requests] == [None, "S1", "S2"]
    assert view[0]["role"] == "system"
    summary_text = "Summary of the earlier conversation:\nS3"
    if placement == "system_suffix":
        assert view[0]["content"] == sys()["content"] + "\n\n" + summary_text
        assert all(m["role"] != "system" for m in view[1:])
    else:
        assert view[0] == sys()
        assert view[1] == {"role": role, "content": summary_text}
        assert all("Summary of" not in str(m["content"]) for m in view[2:])


@pytest.mark.parametrize("placement", ["after_system", "system_suffix"])
def test_a_view_below_the_threshold_comes_back_identical(placement) -> None:
    r = reducer(summary_placement=placement)
    view = r.reduce(convo(12)).messages()
    assert r.reduce(view).messages() == view


def test_summary_alone_in_the_system_slot_is_recognised() -> None:
    # system_suffix without a system prompt: the summary is the whole system message.
    fake = FakeSummarizer()
    r = reducer(fake, summary_placement="system_suffix")
    first = r.reduce(convo(12)[1:]).messages()
    assert first[0] == {"role": "system", "content": "Summary of the earlier conversation:\nS1"}
    second = r.reduce([*first, u(words(80, "more"))]).messages()
    assert fake.requests[1].previous_summary == "S1"
    assert second[0] == {"role": "system", "content": "Summary of the earlier conversation:\nS2"}


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"summary_max_tokens": 60}, "summary_max_tokens"),
        ({"summary_max_tokens": 0}, "positive"),
        ({"summary_role": "tool"}, "summary_role"),
        ({"summary_placement": "end"}, "summary_placement"),
        ({"soft_threshold_tokens": 50}, "soft_threshold_tokens"),
        ({"soft_threshold_messages": 50}, "same unit"),
    ],
)
def test_bad_configuration(kwargs, needle) -> None:
    with pytest.raises(ConfigurationError, match=needle):
        reducer(**kwargs)


def test_summarizer_without_summarize_is_rejected() -> None:
    with pytest.raises(ConfigurationError, match="summarize"):
        SummarizationReducer(object(), threshold_tokens=100)  # type: ignore[arg-type]


@pytest.mark.parametrize("target", [60, 61, 75, 90])
def test_a_summary_using_all_its_slack_still_leaves_the_view_within_target(target: int) -> None:
    # Validation accepts summary_max_tokens plus slack (here 10 + 16 words); the cut must
    # leave room for that much, not just summary_max_tokens, or the view ends over target.
    limit = summary_limit(10)
    fake = FakeSummarizer(reply=words(limit, "s"))
    result = reducer(fake, target_tokens=target).reduce(convo(12))
    assert result.reduced and result.summary is not None
    assert WordCounter().count_text(result.summary.text) > 10 + 10  # the slack was used
    assert result.tokens_after <= target


# -- the hard limit (background mode) ----------------------------------------------------------


def test_hard_limit_defaults_to_the_models_window_less_the_reply() -> None:
    by_model = SummarizationReducer(threshold_tokens=8000, model="gpt-4o")
    assert by_model.hard_limit == 128_000 - 16_384
    assert SummarizationReducer(threshold_tokens=8000).hard_limit == 16_000
    assert SummarizationReducer(threshold_messages=40).hard_limit == 80
    given = SummarizationReducer(threshold_tokens=8000, hard_limit_tokens=9000)
    assert given.hard_limit == 9000 and given.record()["hard_limit"] == 9000
    assert "hard_limit" not in by_model.record()  # a default is worked out again on resume


def test_hard_limit_is_checked() -> None:
    with pytest.raises(ConfigurationError, match="hard_limit_tokens"):
        SummarizationReducer(threshold_tokens=8000, hard_limit_tokens=7999)
    with pytest.raises(ConfigurationError, match="same unit"):
        SummarizationReducer(threshold_tokens=8000, hard_limit_messages=100)
    with pytest.raises(ConfigurationError, match="hard_limit_messages"):
        SummarizationReducer(threshold_messages=40, hard_limit_messages=10)


def test_hard_limit_survives_a_session_dict() -> None:
    from summem.reducers.records import reducer_from_record

    reducer = SummarizationReducer(
        threshold_tokens=8000, soft_threshold_tokens=7000, hard_limit_tokens=12_000
    )
    rebuilt = reducer_from_record(reducer.record())
    assert isinstance(rebuilt, SummarizationReducer) and rebuilt.hard_limit == 12_000


class _Tally(WordCounter):
    def __init__(self) -> None:
        self.counted: list[str] = []

    def count_message(self, message):
        self.counted.append(message.id)
        return super().count_message(message)


@pytest.mark.parametrize("n_words", [2, 50])
def test_a_span_is_tokenized_only_as_far_as_the_summary_budget_needs(n_words: int) -> None:
    """max_tokens = min(summary_max_tokens, replaced - 1): once the span's tokens pass
    summary_max_tokens + 1 the rest cannot change it, and is not counted."""
    summarizer = FakeSummarizer(reply="s")
    tally = _Tally()
    r = SummarizationReducer(
        summarizer,
        threshold_messages=30,
        target_messages=10,
        token_counter=tally,
        summary_max_tokens=40,
    )
    msgs = [u(words(n_words, f"m{i}")) for i in range(31)]
    r.reduce(msgs)
    (request,) = summarizer.requests
    full = sum(3 + n_words for _ in request.messages)
    assert request.max_tokens == max(1, min(40, full - 1))
    evicted = {m.id for m in request.messages}
    counted = [i for i in tally.counted if i in evicted]
    # the budget needs 41 tokens; validating the 1-token summary, 2 (the first message)
    need = 1 if n_words == 50 else 9  # 53 tokens a message, or 5
    assert len(set(counted)) == min(need, len(evicted)) < len(evicted)


def test_tokens_up_to_is_exact_up_to_the_bound_and_past_it_beyond() -> None:
    from summem.summarizers.base import tokens_up_to

    msgs = parse_messages([u(words(7, f"m{i}")) for i in range(4)])  # 10 tokens each
    assert tokens_up_to(WordCounter(), msgs, "one two", 100) == 42  # all of it
    assert tokens_up_to(WordCounter(), msgs, "one two", 40) == 42  # 40 is not passed by 40
    assert tokens_up_to(WordCounter(), msgs, None, 15) == 20  # stopped after the second


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (  # the default summary budget does not fit the target the user set: blame the target
            {"threshold_tokens": 800, "target_tokens": 500},
            "target_tokens (500) must be larger than summary_max_tokens (512, its default): "
            "set target_tokens above 512, or summary_max_tokens below 500",
        ),
        (  # both set by the user: the summary budget is at fault
            {"threshold_tokens": 800, "target_tokens": 500, "summary_max_tokens": 600},
            "summary_max_tokens (600) must be smaller than target_tokens (500): set "
            "summary_max_tokens below 500, or target_tokens above 600",
        ),
        (  # only a threshold: the target is a default too, and said to be
            {"threshold_tokens": 500},
            "summary_max_tokens (512, its default) must be smaller than target_tokens "
            "(375, its default)",
        ),
    ],
)
def test_a_budget_error_blames_what_was_set_and_says_what_to_set(
    kwargs: dict[str, Any], message: str
) -> None:
    from summem.reducers.summarization import SummarizationReducer

    with pytest.raises(ConfigurationError) as info:
        SummarizationReducer(**kwargs)
    assert message in str(info.value)


def test_a_recall_note_too_big_for_the_summary_says_what_to_set() -> None:
    import re

    from summem.reducers.summarization import SummarizationReducer

    def build(summary_max_tokens: int) -> SummarizationReducer:
        return SummarizationReducer(
            threshold_tokens=2000,
            target_tokens=1500,
            summary_max_tokens=summary_max_tokens,
            recall_note=True,
        )

    with pytest.raises(ConfigurationError) as info:
        build(20)
    found = re.search(r"set summary_max_tokens to (\d+) or more", str(info.value))
    assert found, str(info.value)
    build(int(found.group(1)))  # what it says to set works
