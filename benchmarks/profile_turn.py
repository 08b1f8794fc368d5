"""Where one ``Memory.add`` + ``messages()`` turn goes, step by step.

Run from the repository root::

    python benchmarks/profile_turn.py                   # the three budget units, 2,000 turns
    python benchmarks/profile_turn.py --unit messages --turns 5000
    python benchmarks/profile_turn.py --tokenizer       # only the exact counter vs tiktoken
    python benchmarks/profile_turn.py --parts           # each function of a turn on its own
    python benchmarks/profile_turn.py --split           # an exact-token turn vs its floor

It replays ``benchmarks/conversation.py`` (as ``bench_hotpath`` Part 1 does, blocking mode, an
instant summarizer) twice in one process: once through ``Memory.add`` + ``messages()`` as
they are (the turn's median), once through the same steps called one by one from here, with
``perf_counter_ns`` between them (each step's median). The steps' medians do not add up to the
turn's median (medians do not add; the clock calls cost ~0.05 us each); what the one-by-one
run lacks (the write lock, the flow and its driver, ``_after_write``'s bookkeeping) shows in
the gap. Steps that cannot be told apart from here are timed together.

``--tokenizer`` compares, per kind of message, the exact counter (``count_message`` on a
fresh message, nothing cached) with tiktoken on the message's text once (``bench_hotpath``'s
floor), both in a loop that does nothing else, and counts the ``encode_ordinary`` calls the
counter makes per message.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.bench_hotpath import SCALE, reducer_for, text_of
from benchmarks.conversation import conversation
from summem import Memory
from summem.messages import new_message_id, parse_message
from summem.tokens.openai import TiktokenCounter, load_encoding

CLOCK = time.perf_counter_ns
STEPS = (
    "build, check and size",
    "store append",
    "extend the cached view",
    "decide whether to reduce",
    "render + messages()",
)


def whole_turns(unit: str, msgs: list[dict[str, Any]]) -> float:
    """Median ns of ``add`` + ``messages()`` over the second half of ``msgs``."""
    memory = Memory("profile", reducer=reducer_for(unit))
    half = len(msgs) // 2
    times: list[int] = []
    for i, m in enumerate(msgs):
        t0 = CLOCK()
        memory.add(m)
        memory.messages()
        if i >= half:
            times.append(CLOCK() - t0)
    memory.close()
    return statistics.median(times)


def stepwise(unit: str, msgs: list[dict[str, Any]]) -> dict[str, float]:
    """Median ns of each step of a turn, called one by one as ``Memory`` calls them."""
    memory = Memory("profile", reducer=reducer_for(unit))
    core, store = memory._core, memory.store
    half = len(msgs) // 2
    times: dict[str, list[int]] = {name: [] for name in STEPS}
    for i, m in enumerate(msgs):
        t0 = CLOCK()
        batch = core.prepare(m, single=True)  # builds the message as add() does
        t2 = CLOCK()
        if batch.system_changed:
            store.set_system("profile", batch.system)
            core.system_set(batch.system)
        length = store.append("profile", batch.history) if batch.history else core.length
        t3 = CLOCK()
        if batch.history and not core.appended(batch, length):
            raise RuntimeError("the copy went stale")
        t4 = CLOCK()
        action, _ = core.decide(in_flight=False)
        t5 = CLOCK()
        core.render(None)
        t6 = CLOCK()
        if action is not None:  # reduce as the memory would (not timed: not the hot path)
            memory._reduce(action)
        if i >= half:
            marks = (t0, t2, t3, t4, t5, t6)
            for name, a, b in zip(STEPS, marks[:-1], marks[1:], strict=True):
                times[name].append(b - a)
    memory.close()
    return {name: statistics.median(ts) for name, ts in times.items()}


def _median_ns(fn: Any, args: list[Any], rounds: int = 3) -> float:
    """The median ns of ``fn(arg)`` over ``args``, ``rounds`` times over."""
    times: list[int] = []
    for _ in range(rounds):
        for a in args:
            t0 = CLOCK()
            fn(a)
            times.append(CLOCK() - t0)
    return statistics.median(times)


def parts(msgs: list[dict[str, Any]]) -> None:
    """Each function of a plain message's turn (message mode) on its own, median ns per call.

    The plain messages of the conversation (user or assistant text: the median turn's kind),
    each part called in a loop over them in a memory in its steady state. The flow's and the
    facade's share is what ``add`` and ``messages()`` take beyond the parts they call.
    """
    plain = [m for m in msgs if m["role"] in ("user", "assistant") and not m.get("tool_calls")]
    memory = Memory("parts", reducer=reducer_for("messages"))
    for m in msgs[:200]:
        memory.add(m)
    core, store = memory._core, memory.store
    batches = [core.prepare(m, single=True) for m in plain]
    side = Memory("side", reducer=reducer_for("messages"))  # a copy extended by hand
    side.add(plain[0])
    side_core = side._core

    def extend(batch: Any) -> None:
        if not side_core.appended(batch, side_core.length + 1):
            raise RuntimeError("the copy went stale")
        if len(side_core.tail) > 40:  # keep the copy the size a message-mode view has
            side_core.exact()  # (no-op in message mode: the view is counted exactly)
            del side_core.tail[:10], side_core.sizes[:10]
            side_core.total = sum(side_core.sizes)

    rows = {
        "new_message_id()": _median_ns(lambda _: new_message_id(), plain),
        "parse_message (with its id)": _median_ns(parse_message, plain),
        "SessionCore.prepare (parse, size, Batch)": _median_ns(
            lambda m: core.prepare(m, single=True), plain
        ),
        "Store.append (the in-memory store)": _median_ns(
            lambda b: store.append("parts-side", b.history), batches
        ),
        "SessionCore.appended": _median_ns(extend, batches),
        "SessionCore.decide": _median_ns(lambda _: core.decide(in_flight=False), plain),
        "SessionCore.render": _median_ns(lambda _: core.render(None), plain),
        "Memory.add (all of it)": _median_ns(memory.add, plain),
        "Memory.messages() (all of it)": _median_ns(lambda _: memory.messages(), plain),
    }
    memory.close()
    side.close()
    inner = sum(
        rows[k]
        for k in (
            "SessionCore.prepare (parse, size, Batch)",
            "Store.append (the in-memory store)",
            "SessionCore.appended",
            "SessionCore.decide",
        )
    )
    rows["add beyond those four (lock, flow, driver, _after_write)"] = (
        rows["Memory.add (all of it)"] - inner
    )
    rows["messages() beyond render (facade checks)"] = (
        rows["Memory.messages() (all of it)"] - rows["SessionCore.render"]
    )
    print(f"a plain message's turn, part by part (median us per call, {len(plain)} messages)")
    for name, ns in rows.items():
        print(f"  {name:58} {ns / 1e3:6.2f}")


def split(msgs: list[dict[str, Any]]) -> None:
    """An exact-token turn against ``bench_hotpath``'s floor: where the difference goes.

    Replays the conversation (exact tokens) timing, inside each turn, the tokenizer's own
    calls (a wrapper around ``encode_ordinary``, ~0.1 us a call), and marks the turns that
    reduced (the watermark moved); then times the floor (``len(encode_ordinary(text))`` per
    message, a loop doing nothing else) over the same messages. Medians over the second half.
    """
    reducer = reducer_for("exact")
    memory = Memory("split", reducer=reducer)
    counter = reducer.token_counter
    encode = load_encoding("o200k_base").encode_ordinary
    spent = [0]

    def timed(text: str) -> list[int]:
        t0 = CLOCK()
        ids = encode(text)
        spent[0] += CLOCK() - t0
        return ids

    object.__setattr__(counter, "_encode_ordinary", timed)  # on this one counter only
    half = len(msgs) // 2
    turns: list[int] = []
    plain: list[int] = []
    tokenizing: list[int] = []
    for i, m in enumerate(msgs):
        spent[0] = 0
        watermark = memory._core.watermark
        t0 = CLOCK()
        memory.add(m)
        memory.messages()
        took = CLOCK() - t0
        if i >= half:
            turns.append(took)
            tokenizing.append(spent[0])
            if memory._core.watermark == watermark:
                plain.append(took)
    memory.close()
    floor: list[int] = []
    for text in (text_of(m) for m in msgs[half:]):
        t0 = CLOCK()
        len(encode(text))
        floor.append(CLOCK() - t0)
    f = statistics.median(floor)
    rows = {
        "the floor: len(encode_ordinary(text)), a tight loop": f,
        "a turn (add + messages())": statistics.median(turns),
        "a turn that did not reduce": statistics.median(plain),
        "the tokenizer's calls inside a turn": statistics.median(tokenizing),
    }
    reduced = len(turns) - len(plain)
    print(f"exact tokens, median us ({len(turns)} turns, {reduced} of them reduced)")
    for name, ns in rows.items():
        print(f"  {name:54} {ns / 1e3:6.2f}  {ns / f:5.2f}x the floor")


def tokenizer(msgs: list[dict[str, Any]]) -> None:
    """The exact counter next to tiktoken once on the same messages, per kind of message."""
    encode = load_encoding("o200k_base").encode_ordinary
    kinds: dict[str, list[dict[str, Any]]] = {}
    for m in msgs:
        kind = m["role"] + (" with tool calls" if m.get("tool_calls") else "")
        kinds.setdefault(kind, []).append(m)
    print("tokenizer alone, median us per message (a loop doing nothing else)")
    for kind, group in sorted(kinds.items()):
        if len(group) < 20:
            continue
        texts = [text_of(m) for m in group]
        fresh = [parse_message(m) for m in group]
        counter = TiktokenCounter("gpt-4o")
        ref: list[int] = []
        ours: list[int] = []
        for text, msg in zip(texts, fresh, strict=True):
            t0 = CLOCK()
            len(encode(text))
            t1 = CLOCK()
            counter.count_message(msg)
            ours.append(CLOCK() - t1)
            ref.append(t1 - t0)
        spy = TiktokenCounter("gpt-4o")
        calls = [0]
        inner = spy._encode_ordinary

        def counting(text: str, inner: Any = inner, calls: list[int] = calls) -> list[int]:
            calls[0] += 1
            return list(inner(text))

        object.__setattr__(spy, "_encode_ordinary", counting)  # a method replaced on one object
        for m in group:
            spy.count_message(parse_message(m))
        print(
            f"  {kind:26} n={len(group):5}  tiktoken once {statistics.median(ref) / 1e3:6.2f}"
            f"  count_message {statistics.median(ours) / 1e3:6.2f}"
            f"  encode calls a message {calls[0] / len(group):.2f}"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python benchmarks/profile_turn.py", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--unit", choices=["exact", "approx", "messages"], action="append")
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--tokenizer", action="store_true", help="only the tokenizer figures")
    parser.add_argument("--parts", action="store_true", help="only each function on its own")
    parser.add_argument("--split", action="store_true", help="only the exact turn vs its floor")
    args = parser.parse_args(argv)
    msgs = conversation(args.turns, scale=SCALE)
    if args.tokenizer:
        tokenizer(msgs)
        return
    if args.parts:
        parts(msgs)
        return
    if args.split:
        split(msgs)
        return
    whole_turns("exact", msgs[: min(500, len(msgs))])  # warm-up: tokenizer, caches
    for unit in args.unit or ["exact", "approx", "messages"]:
        turn = whole_turns(unit, msgs)
        steps = stepwise(unit, msgs)
        print(f"{unit}: median turn {turn / 1e3:.2f} us (add + messages(), last {len(msgs) // 2})")
        for name, ns in steps.items():
            print(f"  {name:28} {ns / 1e3:6.2f} us")
        print(f"  {'sum of the step medians':28} {sum(steps.values()) / 1e3:6.2f} us")


if __name__ == "__main__":
    main()
