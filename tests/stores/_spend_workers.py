"""Memories that race for one spend budget, importable by spawned processes.

Each racer owns one session of the tenant ``acme``, filled just under the reducer's threshold,
and adds one message: exactly one reduction, so at most one summarizer call. The summarizer
(:class:`GatedLLM`) waits in its call until every racer has either entered a call or finished
without one: all racers are past their budget check before any call is charged, which is
where a check-then-charge lets them all through. Nothing is timed.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from summem import Memory
from summem._flow import Flow, done
from summem.messages import user
from summem.observe import SpendLimit
from summem.reducers import SummarizationReducer
from summem.stores.base import Store
from summem.summarizers import ExtractiveSummarizer, FallbackSummarizer
from summem.summarizers.base import SummaryOutput, SummaryRequest
from tests.fakes.counters import WordCounter

MODEL = "gpt-4o-mini"  # in the bundled price map: a cost limit can estimate what a call costs
CALL_TOKENS = (8, 2)  # what each call reports (in, out): below any estimate of the request
FILL = 10  # messages of 8 words + 3: 110 counted tokens, the threshold is 120


class Gate:
    """Holds every racer's call until all racers have entered a call or finished without one.

    Built on a multiprocessing context's primitives, so it also crosses spawned processes.
    """

    def __init__(self, ctx: Any, parties: int) -> None:
        self.parties = parties
        self.cond = ctx.Condition()
        self.arrived = ctx.Value("i", 0, lock=False)
        self.calls = ctx.Value("i", 0, lock=False)

    def arrive(self, *, call: bool) -> None:
        with self.cond:
            self.arrived.value += 1
            if call:
                self.calls.value += 1
            self.cond.notify_all()

    def wait(self) -> None:
        with self.cond:  # a generous bound against a hang, never asserted on
            self.cond.wait_for(lambda: self.arrived.value >= self.parties, timeout=60)


class GatedLLM:
    """A summarizer that spends (it has a model), held at the gate during its call."""

    model = MODEL
    name = "gated"

    def __init__(self, gate: Gate) -> None:
        self.gate = gate
        self.entered = False

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        self.entered = True
        self.gate.arrive(call=True)
        self.gate.wait()
        tokens_in, tokens_out = CALL_TOKENS
        return done(
            SummaryOutput(
                text="Short.",
                summarizer=self.name,
                model=self.model,
                calls=1,
                input_tokens=tokens_in,
                output_tokens=tokens_out,
            )
        )


def limit_of(kind: str) -> SpendLimit:
    """A budget of five calls, in tokens or in dollars (the calls are priced by the map)."""
    from summem.observe.cost import cost_usd

    if kind == "tokens":
        return SpendLimit(max_tokens=5 * sum(CALL_TOKENS), scope="prefix")
    return SpendLimit(max_cost_usd=5 * cost_usd(MODEL, *CALL_TOKENS), scope="prefix")


def race(store: Store, session_id: str, gate: Gate, limit: str) -> bool:
    """One racer: fill ``session_id``, add the message that reduces; True if the LLM was called."""
    llm = GatedLLM(gate)
    entered = False
    try:
        store.append(session_id, [user(f"m{i} " + "word " * 7) for i in range(FILL)])
        reducer = SummarizationReducer(
            FallbackSummarizer([llm, ExtractiveSummarizer()]),
            threshold_tokens=120,
            target_tokens=60,
            summary_max_tokens=30,
            token_counter=WordCounter(),
        )
        memory = Memory(session_id, store=store, reducer=reducer, spend_limit=limit_of(limit))
        memory.add(user("last " + "word " * 7))
        memory.close()
        entered = llm.entered
    finally:
        if not llm.entered:
            gate.arrive(call=False)
    return entered


def process_main(spec: tuple[str, ...], tag: str, threads: int, gate: Gate, queue: Any) -> None:
    """A spawned process running ``threads`` racers on one store; puts a report on ``queue``."""
    from tests.stores._workers import open_spec

    errors: list[str] = []
    store = open_spec(spec)

    def run(i: int) -> None:
        try:
            race(store, f"acme:{tag}-{i}", gate, "tokens")
        except BaseException as exc:
            errors.append(f"{type(exc).__name__}: {exc}")

    try:
        workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(timeout=120)
    finally:
        store.close()
        queue.put({"tag": tag, "errors": errors, "pid": os.getpid()})
