"""A spend limit bound to one memory's store: where its checks read and its charges go.

A :class:`~summem.observe.spend.SpendLimit` may serve memories on different stores, so the
ledger is chosen per memory: the store's own when it keeps one (shared by every process on
the store, kept across restarts), else the limit's in-process one. Charges also go to the
limit's in-process ledger, so :meth:`SpendLimit.spent` shows what this process spent, and a
check reads both: the store's ledger holds every process's spend on that store, the limit's
what this process spent through it on any store (memories sharing the limit share its budget,
as without a ledger); each is part of the truth, so the larger of each figure counts.

The check and the charge are one reservation: before a summarizer call, :meth:`Budget.reserve`
holds an estimate of the call's spend (:func:`estimate`) in the limit's in-process ledger and
then in the store's, each checking and holding in one atomic step that counts the holds of
the calls in flight; after it, :meth:`Budget.settle` replaces the holds with what the call
spent, or :meth:`Budget.release` drops them. Memories racing for one budget (threads of a
process, processes on one store) so never start more calls than it allows: a call starts only
while what was spent plus what the calls in flight may spend is under every limit. A hold
whose process died lapses after the limit's ``hold_ttl_seconds``; one whose reservation had
an unknown outcome, or whose flow was closed or cancelled, is released at once.
"""

from __future__ import annotations

import logging
import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from summem._flow import Flow
from summem.errors import StoreError, StoreOutcomeUnknownError
from summem.messages import Message
from summem.observe.cost import cost_usd
from summem.observe.ledger import Spent
from summem.observe.spend import SpendLimit
from summem.session.steps import StoreSteps

__all__ = ["Budget", "Ticket", "estimate"]

logger = logging.getLogger("summem")


@dataclass(frozen=True)
class Ticket:
    """What :meth:`Budget.reserve` answered.

    Attributes:
        hold_id: the call's hold, to settle or release; ``None``: refused (no LLM call).
        spent: what counted against the limits (spent in the window and held by others).
    """

    hold_id: str | None
    spent: Spent

    @property
    def granted(self) -> bool:
        """The call may use the LLM."""
        return self.hold_id is not None


class Budget:
    """``limit`` over ``store``'s ledger when it has one.

    Args:
        limit: the spend limit.
        store: the memory's store steps (``None``: the limit's in-process ledger only).
    """

    def __init__(self, limit: SpendLimit, store: StoreSteps | None) -> None:
        self.limit = limit
        self.store = store if store is not None and store.spend_ledger else None

    def key(self, session_id: str) -> str:
        """The budget ``session_id`` draws on."""
        return self.limit.key(session_id)

    def spent(self, key: str) -> Flow[Spent]:
        """What ``key`` spent in the window, read from the ledger.

        Raises:
            StoreError: the store's ledger cannot be read (the reduction fails, and backs off).
        """
        local = self.limit.spent(key)
        if self.store is None:
            return local
        shared = yield from self.store.spent_since(self.limit.ledger_key(key), self.limit.horizon())
        return Spent(max(local.tokens, shared.tokens), max(local.cost_usd, shared.cost_usd))

    def reserve(self, key: str, tokens: int, cost: float) -> Flow[Ticket]:
        """Hold ``tokens`` and ``cost`` for one call of ``key`` if the budget allows.

        Raises:
            StoreError: the store's ledger cannot be reached (the reduction fails, and backs
                off); nothing stays held.
        """
        hold = self.limit.hold(uuid.uuid4().hex, tokens, cost)
        local = self.limit.reserve(key, hold)
        if not local.granted or self.store is None:
            return Ticket(hold.hold_id if local.granted else None, local.spent)
        ledger_key = self.limit.ledger_key(key)
        try:
            shared = yield from self.store.reserve_spend(ledger_key, hold)
        except StoreOutcomeUnknownError:  # the store may hold it: drop it (idempotent)
            self.limit.release(key, hold.hold_id)
            yield from self._release_quietly(key, ledger_key, hold.hold_id)
            raise
        except Exception:
            self.limit.release(key, hold.hold_id)
            raise
        except BaseException:  # closed or cancelled mid-reservation: the store may hold it
            self.limit.release(key, hold.hold_id)
            self.store.release_spend_now(ledger_key, hold.hold_id)
            raise
        spent = Spent(
            max(local.spent.tokens, shared.spent.tokens),
            max(local.spent.cost_usd, shared.spent.cost_usd),
        )
        if not shared.granted:
            self.limit.release(key, hold.hold_id)
            return Ticket(None, spent)
        return Ticket(hold.hold_id, spent)

    def settle(self, key: str, ticket: Ticket, tokens: int, cost_usd: float) -> Flow[None]:
        """Replace ``ticket``'s holds with what the call spent (a refused one: a charge).

        A store that cannot record it is logged, not raised: the call is paid for by then.
        """
        if ticket.hold_id is None:
            yield from self.charge(key, tokens, cost_usd)
            return
        tokens, cost_usd = _chargeable(key, tokens, cost_usd)
        self.limit.settle(key, ticket.hold_id, tokens, cost_usd)
        if self.store is None:
            return
        at, prune_before = self.limit.now(), self.limit.prune_horizon()
        for attempt in (1, 2):  # a settle is idempotent: one that may not have landed is retried
            try:
                if not tokens and not cost_usd:
                    yield from self.store.release_spend(self.limit.ledger_key(key), ticket.hold_id)
                else:
                    yield from self.store.settle_spend(
                        self.limit.ledger_key(key),
                        ticket.hold_id,
                        at=at,
                        tokens=tokens,
                        cost_usd=cost_usd,
                        prune_before=prune_before,
                    )
                return
            except StoreOutcomeUnknownError as exc:
                if attempt == 2:
                    logger.warning("spend for %r may not be recorded in the store: %s", key, exc)
            except StoreError as exc:
                logger.warning("spend for %r not recorded in the store: %s", key, exc)
                return

    def release(self, key: str, ticket: Ticket) -> Flow[None]:
        """Drop ``ticket``'s holds: the call failed before spending anything.

        A store that cannot drop it is logged: the hold lapses at its expiry.
        """
        if ticket.hold_id is None:
            return
        self.limit.release(key, ticket.hold_id)
        if self.store is None:
            return
        yield from self._release_quietly(key, self.limit.ledger_key(key), ticket.hold_id)

    def _release_quietly(self, key: str, ledger_key: str, hold_id: str) -> Flow[None]:
        assert self.store is not None
        try:
            yield from self.store.release_spend(ledger_key, hold_id)
        except StoreError as exc:
            logger.warning("hold for %r not released in the store (it lapses): %s", key, exc)

    def forget(self, key: str, ticket: Ticket) -> None:
        """Drop ``ticket``'s holds from outside the flow (closed or cancelled: no store step).

        The store's hold goes at once all the same (a sync store's now, an async store's in a
        task of its own), not left to lapse and block the budget.
        """
        if ticket.hold_id is None:
            return
        self.limit.release(key, ticket.hold_id)
        if self.store is not None:
            self.store.release_spend_now(self.limit.ledger_key(key), ticket.hold_id)

    def charge(self, key: str, tokens: int, cost_usd: float) -> Flow[None]:
        """Record one call's spend; a store that cannot record it is logged, not raised.

        The call is paid for by then: failing the reduction would waste it.
        """
        tokens, cost_usd = _chargeable(key, tokens, cost_usd)
        self.limit.charge(key, tokens, cost_usd)
        if self.store is None or (not tokens and not cost_usd):
            return
        try:
            yield from self.store.record_spend(
                self.limit.ledger_key(key),
                at=self.limit.now(),
                tokens=int(tokens),
                cost_usd=float(cost_usd),
                prune_before=self.limit.prune_horizon(),
            )
        except StoreError as exc:
            logger.warning("spend for %r not recorded in the store: %s", key, exc)


def _chargeable(key: str, tokens: object, cost_usd: object) -> tuple[int, float]:
    """What a call's usage adds to the budget: a figure that is no count or no price adds 0.

    A summarizer (or a provider) may report a NaN, negative or missing figure; the call is
    paid for by then, so the figure is logged and left out rather than failing the turn.
    """

    def usable(value: object) -> float | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        number = float(value)
        return number if math.isfinite(number) and number >= 0 else None

    t, c = usable(tokens), usable(cost_usd)
    if t is None or c is None:
        logger.warning(
            "spend for %r has an unusable figure (tokens=%r, cost_usd=%r): that figure counts as 0",
            key,
            tokens,
            cost_usd,
        )
    return int(t or 0), c or 0.0


def estimate(
    span: Sequence[Message], previous: Message | None, reducer: object, summarizer: object
) -> tuple[int, float]:
    """What one summarizer call on ``span`` may spend: ``(tokens, cost_usd)``, for its hold.

    In: the span and the previous summary (the reducer's token counter, else 4 characters a
    token) and the fixed text of the largest prompt of the summarizer's LLM steps; out: the
    reply's room (as an LLM summarizer caps it: twice the summary's budget, at least the
    budget plus 256). Priced on the dearest model of the steps.
    """
    counter = getattr(reducer, "token_counter", None)
    parts = [*span, *([previous] if previous is not None else [])]
    count = getattr(counter, "count_message", None)
    if callable(count):
        tokens_in = sum(int(count(m)) for m in parts)
    else:
        tokens_in = sum(len(m.text) for m in parts) // 4 + 4 * len(parts)
    budget = getattr(reducer, "summary_max_tokens", None)
    budget = budget if isinstance(budget, int) and budget > 0 else 512
    steps = _llm_steps(summarizer)
    tokens_in += max((_prompt_tokens(step, counter, budget) for step in steps), default=0)
    tokens_out = max(2 * budget, budget + 256)
    models = [str(getattr(step, "model", "")) for step in steps]
    cost = max((cost_usd(m, tokens_in, tokens_out) for m in models), default=0.0)
    return tokens_in + tokens_out, cost


def _llm_steps(summarizer: object) -> list[object]:
    """``summarizer`` and its chain's steps that call a model (they have a ``model`` name)."""
    steps = getattr(summarizer, "steps", None)
    if isinstance(steps, tuple):
        return [s for step in steps for s in _llm_steps(step)]
    return [summarizer] if isinstance(getattr(summarizer, "model", None), str) else []


def _prompt_tokens(step: object, counter: object, budget: int) -> int:
    """The fixed text of ``step``'s prompt (rendered with no transcript), in tokens.

    0 when ``step`` has no prompt summem can render.
    """
    render = getattr(getattr(step, "prompt", None), "render", None)
    if not callable(render):
        return 0
    try:
        rendered = render(previous_summary=None, transcript="", max_tokens=budget)
        texts = [str(m.get("content", "")) for m in rendered]
    except Exception:  # a prompt of another shape: the estimate goes without it
        return 0
    count_text = getattr(counter, "count_text", None)
    if callable(count_text):
        return sum(int(count_text(t)) + 4 for t in texts)
    return sum(len(t) // 4 + 4 for t in texts)
