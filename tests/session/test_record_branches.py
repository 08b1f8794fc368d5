"""``record()`` and the full-list habit: edits, regenerates and rewinds branch (issue #28).

A list that is the whole conversation edited or cut short branches where it differs, instead
of recording everything again (history 4 -> 10) or raising; new messages that repeat an
earlier "ok" or "hi" are never taken for a resent conversation. The proof that a list is the
whole conversation is a model reply summem recorded from a response (``reply()`` here, as the
wrappers mark it); without it the list is new messages (``mode="full"`` says otherwise). Each
scenario runs through ``Memory`` and ``AsyncMemory``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from summem.async_memory import AsyncMemory
from summem.errors import HistoryMismatchError
from summem.memory import Memory
from summem.messages import MODEL_REPLY, Message
from summem.session.recorded import Recorded, fingerprint, read_list
from summem.stores.memory import InMemoryStore
from tests.fakes.counters import words
from tests.fakes.memory import small_reducer
from tests.fakes.messages import a, call, reply, res, sys, u
from tests.test_async_parity import Awaited

MODES = ["sync", "async"]
TWO_TURNS = [u("u1"), reply("a1"), u("u2"), reply("a2")]
"""Replies as the wrappers record a model's: the proof that a list resending them is the
whole conversation (an assistant message the caller wrote is none, see the last tests)."""


def make(mode: str, session_id: str = "s", **kw: Any) -> Any:
    kw.setdefault("reducer", small_reducer())
    if mode == "sync":
        return Awaited(Memory(session_id, **kw))
    return AsyncMemory(session_id, **kw)


async def texts(memory: Any) -> list[str]:
    return [m["content"] for m in await memory.history()]


async def branched_off(memory: Any) -> list[list[str]]:
    return [
        [m["content"] for m in await memory.branch_messages(b.id)] for b in await memory.branches()
    ]


@pytest.mark.parametrize("mode", MODES)
async def test_editing_the_first_message_and_resending_the_rest_branches_at_0(mode: str) -> None:
    memory = make(mode)
    await memory.record([sys(), *TWO_TURNS])
    edited = [sys(), u("EDITED"), *TWO_TURNS[1:]]
    await memory.record(edited)
    assert await texts(memory) == ["EDITED", "a1", "u2", "a2"]  # 4 -> 4, not 10
    assert await branched_off(memory) == [["u1", "a1", "u2", "a2"]]
    assert [m["content"] for m in await memory.messages()] == [
        sys()["content"],
        *await texts(memory),
    ]
    await memory.record([*edited, u("u3")])  # and the habit goes on from there
    assert await texts(memory) == ["EDITED", "a1", "u2", "a2", "u3"]
    await memory.close()


@pytest.mark.parametrize("mode", MODES)
async def test_editing_a_later_turn_branches_there(mode: str) -> None:
    memory = make(mode)
    await memory.record([*TWO_TURNS, u("u3"), reply("a3")])
    await memory.record([u("u1"), a("a1"), u("u2 edited")])  # edit, the rest dropped (a UI)
    assert await texts(memory) == ["u1", "a1", "u2 edited"]
    await memory.record([u("u1"), a("a1"), u("u2 edited"), a("b2"), u("u3"), a("a3")])
    assert await texts(memory) == ["u1", "a1", "u2 edited", "b2", "u3", "a3"]
    assert await branched_off(memory) == [["u2", "a2", "u3", "a3"]]
    await memory.close()


@pytest.mark.parametrize("mode", MODES)
async def test_regenerate_and_rewind_are_proper_prefixes(mode: str) -> None:
    memory = make(mode)
    await memory.record([sys(), *TWO_TURNS])
    await memory.record([sys(), u("u1"), a("a1"), u("u2")])  # regenerate the last reply
    assert await texts(memory) == ["u1", "a1", "u2"]
    await memory.record([u("u1"), a("a1"), u("u2"), reply("a2 again"), u("u3"), reply("a3")])
    await memory.record([u("u1"), a("a1"), u("u2 instead")])  # rewind to a checkpoint, go on
    assert await texts(memory) == ["u1", "a1", "u2 instead"]
    assert await branched_off(memory) == [["a2"], ["u2", "a2 again", "u3", "a3"]]
    await memory.close()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "passed",
    [
        [u("hi")],
        [sys(), u("hi")],  # a stateless caller sending its system message every time
        [u("hi"), u("more")],
        [u("ok")],
    ],
    ids=["hi", "system-and-hi", "hi-and-more", "ok"],
)
async def test_new_messages_that_repeat_earlier_ones_are_never_a_branch(
    mode: str, passed: list[dict[str, Any]]
) -> None:
    memory = make(mode)
    await memory.record([sys(), u("hi"), a("hello"), u("ok"), a("fine"), u("hi"), a("again")])
    before = await texts(memory)
    await memory.record(passed)
    assert await texts(memory) == [*before, *(m["content"] for m in passed if m["role"] == "user")]
    assert await memory.branches() == []
    await memory.close()


@pytest.mark.parametrize("mode", MODES)
async def test_the_new_message_habit_after_reductions_never_branches(mode: str) -> None:
    memory = make(mode)
    for i in range(30):
        await memory.record([u("ok")])
        await memory.record([a(words(7, f"r{i}-"))])
    assert memory.summary is not None
    assert await memory.branches() == []
    assert len(await memory.history()) == 60
    await memory.close()


@pytest.mark.parametrize("mode", MODES)
async def test_without_proof_a_list_is_new_messages_and_mode_full_branches(mode: str) -> None:
    memory = make(mode)
    await memory.record([u("q"), a("r")])  # the caller's own reply: no proof
    with pytest.raises(HistoryMismatchError) as info:  # the reply edited, or new messages?
        await memory.record([sys(), u("q"), a("r2")])
    assert info.value.index == 2  # in the list passed (after its system message)
    assert await texts(memory) == ["q", "r"] and await memory.branches() == []
    await memory.record([u("q"), a("r3")], mode="full")  # the caller says: it is the list
    assert await texts(memory) == ["q", "r3"]
    assert [(b.at, b.length) for b in await memory.branches()] == [(1, 1)]
    await memory.close()


@pytest.mark.parametrize("mode", MODES)
async def test_a_prefix_ending_with_a_reply_is_a_rewind_only_on_proof(mode: str) -> None:
    session = [u("hi"), a("Hello!"), u("q"), a("r")]
    fresh = make(mode)
    await fresh.extend(session)  # the caller's own messages: nothing proves a resend
    await fresh.record([u("hi"), a("Hello!")])  # the greeting again: new messages
    assert await texts(fresh) == ["hi", "Hello!", "q", "r", "hi", "Hello!"]
    assert await fresh.branches() == []
    await fresh.close()
    replied = [u("hi"), reply("Hello!"), u("q"), reply("r")]
    habit = make(mode)
    await habit.record(replied)
    await habit.record([*session, u("next")])  # the whole conversation each time
    await habit.record([u("hi"), a("Hello!")])  # so this is a rewind
    assert await texts(habit) == ["hi", "Hello!"]
    await habit.record([u("hi")])  # and this regenerates the first reply
    assert await texts(habit) == ["hi"]
    await habit.close()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("greeting", [False, True], ids=["few-shot", "greeting"])
async def test_caller_written_replies_leading_every_call_never_branch(
    mode: str, greeting: bool
) -> None:
    """A fixed greeting or few-shot examples before only the new message, every call (#28
    review): the caller's assistant messages are no proof; nothing is abandoned."""
    memory = make(mode)
    lead = [a("Hello! How can I help?")] if greeting else [u("2+2?"), a("4")]
    for i in range(3):
        await memory.record([sys(), *lead, u(f"q{i}")])
        await memory.record([reply(f"r{i}")])  # the model's answer, as a wrapper records it
    assert await memory.branches() == []
    assert await texts(memory) == [
        t for i in range(3) for t in [*(m["content"] for m in lead), f"q{i}", f"r{i}"]
    ]
    await memory.close()


@pytest.mark.parametrize("mode", MODES)
async def test_mode_full_branches_at_the_first_difference(mode: str) -> None:
    memory = make(mode)
    await memory.record(TWO_TURNS, mode="full")
    assert await memory.record(TWO_TURNS, mode="full") == []
    await memory.record([u("u1")], mode="full")
    assert await texts(memory) == ["u1"]
    await memory.record([sys()], mode="full")  # no conversation at all: it is emptied
    assert await texts(memory) == [] and (await memory.messages()) == [sys()]
    assert [(b.at, b.length) for b in await memory.branches()] == [(1, 3), (0, 1)]
    await memory.close()


@pytest.mark.parametrize("mode", MODES)
async def test_an_edited_view_passed_back_branches_behind_the_summary(mode: str) -> None:
    memory = make(mode)
    for i in range(12):
        await memory.add(u(words(7, f"q{i}-")))
        await memory.add(a(words(7, f"r{i}-")))
    summary = memory.summary
    assert summary is not None
    k = summary.summary_info.watermark
    view = await memory.messages()  # [summary, tail...]: the view echoed back
    assert view[0]["content"].startswith("Summary")
    edited = [*view[:-1], u("the last reply, replaced")]
    await memory.record(edited)
    history = await texts(memory)
    assert len(history) == 24 and history[-1] == "the last reply, replaced"
    (branch,) = await memory.branches()
    assert branch.at == 23 and branch.at > k
    assert memory.summary is not None and memory.summary.id == summary.id
    await memory.record([*edited, u("and on")])  # the same view plus a turn: appended
    assert (await texts(memory))[-2:] == ["the last reply, replaced", "and on"]
    await memory.close()


@pytest.mark.parametrize("store", ["memory", "sqlite"])
@pytest.mark.parametrize("mode", MODES)
async def test_a_full_list_edit_after_a_restart_reads_the_history_and_branches(
    mode: str, store: str, tmp_path: Path
) -> None:
    shared: Any = InMemoryStore() if store == "memory" else f"sqlite:///{tmp_path / 'r.db'}"
    conversation: list[dict[str, Any]] = []
    for i in range(10):
        memory = make(mode, store=shared)  # a new process each turn
        conversation += [u(words(7, f"q{i}-")), reply(words(7, f"r{i}-"))]
        await memory.record(conversation)
        await memory.close()
    memory = make(mode, store=shared)
    await memory.refresh()
    assert memory.summary is not None
    k = memory.summary.summary_info.watermark
    edited = [*conversation[:4], u("q2 edited")]  # behind the watermark: reads history[:k]
    assert k > 4
    await memory.record(edited)
    assert await texts(memory) == [
        m.text if isinstance(m, Message) else m["content"] for m in edited
    ]
    (branch,) = await memory.branches()
    assert branch.at == 4 and branch.length == 16
    assert memory.summary is None or memory.summary.summary_info.watermark <= 4
    await memory.close()


@pytest.mark.parametrize("mode", MODES)
async def test_the_tool_recipe_resent_with_an_edit(mode: str) -> None:
    memory = make(mode)
    asked = Message.from_openai(call("c1")).with_meta(**{MODEL_REPLY: True})  # the model's call
    first = [u("look it up"), asked, res("c1", "found"), reply("done")]
    await memory.record(first)
    edited = [u("look it up"), call("c1"), res("c1", "found, corrected"), a("done")]
    await memory.record(edited)
    assert await texts(memory) == ["look it up", None, "found, corrected", "done"]
    (branch,) = await memory.branches()
    assert branch.at == 2
    await memory.close()


def test_read_list_rules_without_a_store() -> None:
    history = [u("hi"), a("hello"), u("q"), a("r")]
    fps = [fingerprint(m) for m in history]
    positions: dict[Any, list[int]] = {}
    for i, fp in enumerate(fps):
        positions.setdefault(fp, []).append(i)
    whole = Recorded(fps, positions, 0, replies={1, 3})  # replies a model gave

    def read(items: list[dict[str, Any]], **kw: Any) -> tuple[list[Any], int | None]:
        reading = read_list(
            items, kw.pop("rec", whole), mode=kw.pop("mode", "auto"), summary_prefix="Summary"
        )
        return reading.new, reading.at

    assert read([*history, u("next")]) == ([u("next")], None)  # rule 1: a resend
    assert read([a("r"), u("next")]) == ([u("next")], None)  # the last reply passed back
    assert read([u("hi")]) == ([u("hi")], None)  # a user message is never evidence
    assert read([u("hi"), a("hello"), u("q2")]) == ([u("q2")], 2)  # an edit
    assert read([u("hi"), a("hello"), u("q")]) == ([], 3)  # a regenerate
    assert read([u("HI"), a("hello"), u("q"), a("r")]) == ([u("HI"), a("hello"), u("q"), a("r")], 0)
    assert read([sys(), u("x")]) == ([sys(), u("x")], None)
    assert read([u("x")], mode="full") == ([u("x")], 0)
    caller = Recorded(fps, positions, 0)  # the same messages, all written by the caller
    assert read([u("hi"), a("hello"), u("q2")], rec=caller) == (
        [u("hi"), a("hello"), u("q2")],
        None,
    )
    habit = Recorded(fps, positions, 0, replies={1, 3}, full_habit=True)
    assert read([u("hi")], rec=habit) == ([], 1)
    tail = Recorded(fps[2:], {fps[2]: [0], fps[3]: [1]}, 2, watermark=2)
    assert read_list([u("hi"), a("hello")], tail, mode="auto", summary_prefix=None).need_history
    assert not read_list([u("new")], tail, mode="auto", summary_prefix=None).need_history


@pytest.mark.parametrize("mode", MODES)
async def test_a_regenerate_in_a_conversation_that_repeats_itself(mode: str) -> None:
    memory = make(mode)
    turns = [u("hi"), reply("hello"), u("hi"), reply("hello")]
    await memory.record(turns[:2])
    await memory.record(turns)  # the whole list: the habit is known from here
    await memory.record(turns[:3])  # regenerate the last reply, not "hi" again at the end
    assert await texts(memory) == ["hi", "hello", "hi"]
    (branch,) = await memory.branches()
    assert (branch.at, branch.length) == (3, 1)
    await memory.close()


@pytest.mark.parametrize("mode", MODES)
async def test_a_new_exchange_repeating_a_canned_reply_is_not_an_edit(mode: str) -> None:
    memory = make(mode)
    await memory.record([u("hi"), a("Hello! How can I help?"), u("q"), a("r")])
    await memory.record([u("hey"), a("Hello! How can I help?")])  # a pair recorded as it came
    assert await texts(memory) == [
        "hi",
        "Hello! How can I help?",
        "q",
        "r",
        "hey",
        "Hello! How can I help?",
    ]
    assert await memory.branches() == []
    await memory.close()
