"""The framework-agnostic part of the integrations: where a framework's list sits in a history."""

from __future__ import annotations

from collections.abc import Hashable

from hypothesis import given, settings
from hypothesis import strategies as st

from summem import Memory, SummarizationReducer
from summem.integrations._window import Fork, RecordedKeys, Window, follow, locate, shown
from summem.messages import Message
from summem.stores import InMemoryStore


def key(message: Message) -> Hashable:
    return str(message.meta.get("k", message.text))


def msg(text: str, k: str | None = None, role: str = "user") -> Message:
    message = Message.from_openai({"role": role, "content": text})
    return message.with_meta(k=k) if k is not None else message


def recorded(*texts: str) -> RecordedKeys:
    r = RecordedKeys()
    r.load([msg(t) for t in texts], key)
    return r


def test_locate() -> None:
    r = recorded("a", "b", "c", "d")
    assert locate(r, ["a", "b", "c", "d", "e"]) == Fork(0, 4)  # goes on: append at 4
    assert locate(r, ["a", "b"]) == Fork(0, 2)  # a regenerate or rewind: branch at 2
    assert locate(r, ["a", "x", "c"]) == Fork(0, 1)  # an edit at 1
    assert locate(r, ["c", "d", "e"]) == Fork(2, 2)  # a window from 2
    assert locate(r, ["x", "y"]) == Fork(0, 0)  # nothing recorded: a new conversation
    assert locate(r, ["x", "c", "d"]) == Fork(1, 0)  # a window's first message edited
    assert locate(r, ["x", "b"]) == Fork(0, 0)  # the first message edited
    assert locate(r, ["x", "y", "a"]) == Fork(0, 0)  # messages put before the first
    assert locate(r, []) == Fork(0, 0)


def test_locate_picks_the_start_repeated_furthest() -> None:
    r = recorded("ok", "a", "ok", "b")
    assert locate(r, ["ok", "b", "c"]) == Fork(2, 2)
    assert locate(r, ["ok", "a"]) == Fork(0, 2)


def test_cut_keeps_positions_right() -> None:
    r = recorded("ok", "a", "ok", "b")
    r.cut(2)
    assert r.keys == ["ok", "a"] and r.positions == {"ok": [0], "a": [1]}
    r.extend([msg("ok")], key)
    assert r.positions["ok"] == [0, 2] and len(r.ids) == 3


def test_matches_the_view_tail_by_id() -> None:
    history = [msg(t) for t in "abc"]
    r = RecordedKeys()
    assert not r.matches([])  # never read
    r.load(history, key)
    assert r.matches(history[1:]) and r.matches(history)
    assert not r.matches([history[0]])  # the history no longer ends there
    assert not r.matches([])  # an empty view tail and a known non-empty history


def test_shown_leaves_out_what_the_window_dropped_and_orphan_results() -> None:
    system = msg("sys", role="system")
    call = Message.from_openai(
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        }
    )
    result = Message.from_openai({"role": "tool", "tool_call_id": "c1", "content": "r"})
    tail = [msg("u"), call, result, msg("next")]
    view = [system, *tail]
    assert shown(view, Window(None, 4)) == view
    assert shown(view, Window(0, 4)) == view
    assert shown(view, Window(1, 4)) == [system, call, result, tail[3]]
    assert shown(view, Window(2, 4)) == [system, tail[3]]  # the result without its call
    assert shown(view, Window(10, 4)) == [system]


def test_follow_appends_branches_and_reads_the_store_only_when_needed() -> None:
    memory = Memory("s")
    r = RecordedKeys()
    a, b, c = msg("a", "A"), msg("b", "B"), msg("c", "C")
    follow(memory, r, [a, b], key)
    follow(memory, r, [a, b, c], key)
    assert [m["content"] for m in memory.history()] == ["a", "b", "c"]
    memory.extend([msg("elsewhere", "E")])  # another writer: the tail's ids change
    window = follow(memory, r, [a, b, msg("c2", "C2")], key)
    assert window == Window(0, 3)
    assert [m["content"] for m in memory.history()] == ["a", "b", "c2"]
    assert [(x.at, x.length) for x in memory.branches()] == [(2, 2)]


class CountingStore(InMemoryStore):
    """Counts the reads of a whole history."""

    whole_reads = 0

    def history(self, session_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        if start == 0 and stop is None:
            self.whole_reads += 1
        return super().history(session_id, start, stop)


def test_a_long_conversation_reads_the_whole_history_once() -> None:
    store = CountingStore()
    memory = Memory(
        "s", store=store, reducer=SummarizationReducer(threshold_messages=7, target_messages=5)
    )
    r = RecordedKeys()
    conversation: list[Message] = []
    for i in range(30):
        conversation.append(msg(f"turn {i}", f"T{i}"))
        follow(memory, r, conversation, key)
    assert memory.summary is not None  # reductions ran meanwhile
    assert store.whole_reads == 1  # the first call; after it the keys are kept up to date
    assert len(memory.history()) == 30 and memory.branches() == []


_op = st.one_of(
    st.tuples(st.just("append"), st.integers(0, 0)),
    st.tuples(st.just("rewind"), st.integers(1, 50)),
    st.tuples(st.just("edit"), st.integers(0, 50)),
    st.just(("edit", 0)),  # the list's first message: a window's start, or the whole start
    st.tuples(st.just("drop_front"), st.integers(1, 50)),
)


@settings(deadline=None, max_examples=200)
@given(st.lists(_op, max_size=25))
def test_follow_keeps_the_history_a_model_predicts(ops: list[tuple[str, int]]) -> None:
    """A framework list edited at random: the active history is always history[:p] + list."""
    memory = Memory("s", reducer=SummarizationReducer(threshold_messages=999, target_messages=900))
    r = RecordedKeys()
    fresh = iter(range(10_000))
    held: list[str] = []  # the framework's list (keys)
    expected: list[str] = []  # the active history, as the rules say
    branches = 0
    for op, n in [("append", 0), *ops]:
        if op == "append":
            held.append(f"m{next(fresh)}")
        elif op == "rewind":
            held = held[: max(1, n % (len(held) + 1))]
        elif op == "edit":
            held[n % len(held)] = f"m{next(fresh)}"
        elif len(held) > 1:
            held = held[n % (len(held) - 1) + 1 :] if n % len(held) else held
        start = next((expected.index(k) - i for i, k in enumerate(held) if k in expected), 0)
        start = max(0, start)
        same = 0
        while same < len(held) and start + same < len(expected):
            if held[same] != expected[start + same]:
                break
            same += 1
        if start + same < len(expected):
            branches += 1
        expected = expected[:start] + held
        follow(memory, r, [msg(k, k) for k in held], key)
        assert [m["content"] for m in memory.history()] == expected
    assert len(memory.branches()) == branches
