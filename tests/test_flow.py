import pytest

from summem._flow import run_async, run_sync
from tests.fakes.summarizers import EchoStep


def _flow(step: EchoStep):
    a = yield step
    try:
        yield _Boom()
    except ValueError as exc:
        b = str(exc)
    return (a, b)


class _Boom:
    def run(self):
        raise ValueError("sync boom")

    async def arun(self):
        raise ValueError("async boom")


def test_sync_driver_sends_results_and_throws_errors() -> None:
    step = EchoStep(41)
    assert run_sync(_flow(step)) == (41, "sync boom")
    assert step.ran == ["sync"]


async def test_async_driver_awaits_steps() -> None:
    step = EchoStep(41)
    assert await run_async(_flow(step)) == (41, "async boom")
    assert step.ran == ["async"]


def test_unhandled_error_propagates() -> None:
    def flow():
        yield _Boom()

    with pytest.raises(ValueError, match="sync boom"):
        run_sync(flow())
