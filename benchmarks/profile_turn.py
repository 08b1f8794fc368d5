"""Where one ``Memory.add`` + ``messages()`` turn goes, step by step.

Run from the repository root::

    python benchmarks/profile_turn.py                   # the three budget units, 2,000 turns
    python benchmarks/profile_turn.py --unit messages --turns 5000
    python benchmarks/profile_turn.py --tokenizer       # only the exact counter vs tiktoken

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
from summem.messages import parse_message
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
    args = parser.parse_args(argv)
    msgs = conversation(args.turns, scale=SCALE)
    if args.tokenizer:
        tokenizer(msgs)
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
