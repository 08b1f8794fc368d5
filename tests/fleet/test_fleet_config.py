"""``dispatch:`` in summem.yaml, and the ``summem worker`` command (no broker needed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from summem.cli.app import cli
from summem.config import parse_config
from summem.errors import ConfigurationError, DispatchError

pytest.importorskip("celery", reason="the Celery dispatcher needs celery (summem[celery])")

FILE = """
store: sqlite:///{db}
budget: {{unit: messages, threshold: 12, target: 6, soft_threshold: 9}}
dispatch:
  broker: amqp://summem:${{BROKER_PASSWORD}}@127.0.0.1:5672//
  queue: reductions
"""


def test_dispatch_settings_build_memories_that_publish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BROKER_PASSWORD", "s3cret-value")
    config = parse_config(FILE.format(db=tmp_path / "s.db"), source="summem.yaml")
    assert config.dispatch is not None and config.dispatch.queue == "reductions"
    assert "reductions" in config.describe()[-1] and "s3cret" not in " ".join(config.describe())
    assert config.broker_url() == "amqp://summem:s3cret-value@127.0.0.1:5672//"
    memory = config.build_memory("s")
    try:
        dispatcher = memory._dispatch.dispatcher if memory._dispatch else None
        assert type(dispatcher).__name__ == "CeleryDispatcher"
        assert dispatcher is config.build_dispatcher()  # one per config, shared
        assert "s3cret" not in repr(dispatcher)
        assert memory.background
    finally:
        memory.close()


@pytest.mark.parametrize(
    ("dispatch", "error"),
    [
        ("{broker: 'amqp://summem:hunter2@127.0.0.1//'}", "literal password"),
        ("{broker: 'http://127.0.0.1'}", "broker must be a URL"),
        ("{queue: q}", "broker"),
        ("{broker: 'redis://127.0.0.1:6379/1', queue: ''}", "queue must not be empty"),
        ("{broker: 'redis://127.0.0.1:6379/1', surprise: 1}", "surprise"),
    ],
)
def test_bad_dispatch_settings_name_the_key(dispatch: str, error: str) -> None:
    with pytest.raises(ConfigurationError, match=error) as info:
        parse_config(f"dispatch: {dispatch}\n", source="summem.yaml")
    assert "summem.yaml" in str(info.value) and "hunter2" not in str(info.value)


def test_the_worker_app_has_the_late_acking_task(tmp_path: Path) -> None:
    from summem.cli.worker import worker_app
    from summem.fleet.celery import TASK_NAME

    text = "store: sqlite:///{db}\ndispatch: {{broker: 'redis://127.0.0.1:6379/9', queue: q1}}\n"
    app = worker_app(parse_config(text.format(db=tmp_path / "s.db")))
    task = app.tasks[TASK_NAME]
    assert task.acks_late and task.reject_on_worker_lost
    assert app.conf.worker_prefetch_multiplier == 1
    assert app.conf.task_default_queue == "q1"
    assert app.conf.broker_transport_options == {}
    text += "  visibility_timeout_seconds: 300\n"
    text = text.replace(
        "dispatch: {{broker: 'redis://127.0.0.1:6379/9', queue: q1}}",
        ("dispatch:\n  broker: redis://127.0.0.1:6379/9\n  queue: q1"),
    )
    app = worker_app(parse_config(text.format(db=tmp_path / "s.db")))
    assert app.conf.broker_transport_options == {"visibility_timeout": 300.0}


def heard(event: object) -> None:
    """A hook named in a summem.yaml (``observe: hooks:``)."""


def test_the_worker_app_keeps_the_producers_spend_limit_and_summaries(tmp_path: Path) -> None:
    from summem.cli.worker import worker_app

    text = (
        f"store: sqlite:///{tmp_path / 's.db'}\n"
        "dispatch: {broker: 'redis://127.0.0.1:6379/9'}\n"
        "summary: {keep_summaries: 3}\n"
        "observe:\n"
        "  spend_limit: {max_tokens: 500, window_seconds: 3600, scope: prefix}\n"
        "  hooks: ['tests.fleet.test_fleet_config:heard']\n"
    )
    context = worker_app(parse_config(text)).summem_context()
    try:
        limit = context.spend_limit
        assert limit is not None
        assert (limit.max_tokens, limit.window_seconds, limit.scope) == (500, 3600, "prefix")
        assert context.keep_summaries == 3
        assert list(context.hooks) == [heard]  # the producers' hooks see the worker's events
    finally:
        context.store.close()


def test_summem_worker_without_a_broker_says_so(tmp_path: Path) -> None:
    runner = CliRunner()
    config = tmp_path / "summem.yaml"
    config.write_text(f"store: sqlite:///{tmp_path / 's.db'}\n")
    result = runner.invoke(cli, ["worker", "--config", str(config)])
    assert result.exit_code == 2
    assert "needs a broker" in result.output
    assert "--broker" in runner.invoke(cli, ["worker", "--help"]).output


@pytest.mark.parametrize("broker", ["nonsense", "foo://127.0.0.1", "amqp://", "http://127.0.0.1"])
def test_summem_worker_with_a_bad_broker_url_says_so(tmp_path: Path, broker: str) -> None:
    config = tmp_path / "summem.yaml"
    config.write_text(f"store: sqlite:///{tmp_path / 's.db'}\n")
    result = CliRunner().invoke(
        cli, ["worker", "--config", str(config), "--broker", broker, "--pool", "solo"]
    )
    assert result.exit_code == 2, result.output
    assert "--broker must be a URL" in result.output and repr(broker) in result.output
    assert "Traceback" not in result.output and result.exception is not None
    assert isinstance(result.exception, SystemExit)


def test_the_task_runs_a_job_and_retries_one_whose_lease_is_held(tmp_path: Path) -> None:
    from celery.exceptions import Retry  # type: ignore[import-untyped]

    from summem import Memory
    from summem.fleet import CallableDispatcher, JobOutcome, ReductionJob
    from summem.fleet.celery import TASK_NAME, WorkerContext, celery_app
    from summem.stores import SQLiteStore
    from tests.fleet.test_dispatch import msg, reducer

    store = SQLiteStore(tmp_path / "s.db")
    jobs: list[dict[str, object]] = []
    memory = Memory("s", reducer=reducer(), store=store, dispatcher=CallableDispatcher(jobs.append))
    for i in range(10):
        memory.add(msg(i))
    memory.wait()
    seen: list[JobOutcome] = []
    made: list[WorkerContext] = []

    def context() -> WorkerContext:
        made.append(WorkerContext(store=store, reducer=reducer(), on_outcome=seen.append))
        return made[-1]

    task = celery_app("memory://", queue="q", context=context).tasks[TASK_NAME]
    assert task({"surprise": 1}) == "malformed"  # dropped, never retried
    job = ReductionJob.from_dict(jobs[0])
    assert store.acquire_lease("s", "someone-else", 60)
    with pytest.raises(Retry):
        task(jobs[0])
    store.release_lease("s", "someone-else")
    assert task(jobs[0]) == "committed"
    assert task(jobs[0]) == "stale"  # delivered twice: committed once
    assert [o.status for o in seen] == ["lease_held", "committed", "stale"]
    assert len(made) == 1 and seen[1].job == job  # one context per process
    memory.close()
    store.close()


def test_the_dispatcher_sends_the_job_as_json_to_its_queue() -> None:
    from kombu.connection import Connection

    from summem.fleet import ReductionJob
    from summem.fleet.celery import TASK_NAME, CeleryDispatcher, celery_app

    app = celery_app("memory://", queue="jobs-here")
    dispatcher = CeleryDispatcher(app, queue="jobs-here")
    job = ReductionJob("s", "e", 4)
    dispatcher.dispatch(job)
    with Connection("memory://") as conn:
        queue = conn.SimpleQueue("jobs-here")
        received = queue.get(timeout=5)
        assert received.headers["task"] == TASK_NAME
        assert ReductionJob.from_dict(received.payload[0][0]) == job
        received.ack()
        queue.close()
    with pytest.raises(DispatchError, match="broker URL"):
        CeleryDispatcher("")
    worker_less = celery_app("memory://", queue="q2").tasks[TASK_NAME]
    with pytest.raises(DispatchError, match="without a worker context"):
        worker_less(job.to_dict())


def test_a_job_whose_store_fails_is_retried_not_lost(tmp_path: Path) -> None:
    from summem.errors import StoreError
    from summem.fleet import ReductionJob
    from summem.fleet.celery import STORE_RETRIES, TASK_NAME, WorkerContext, celery_app
    from summem.stores import SQLiteStore
    from tests.fleet.test_dispatch import reducer

    class Unreachable(SQLiteStore):
        tries = 0

        def probe(self, session_id: str) -> tuple[str, int, int] | None:
            Unreachable.tries += 1
            raise StoreError("connection refused")

    store = Unreachable(tmp_path / "s.db")
    app = celery_app("memory://", queue="q", context=lambda: WorkerContext(store, reducer()))
    # run eagerly, retries included: each retry runs the job again, then it fails for good
    result = app.tasks[TASK_NAME].apply(args=[ReductionJob("s", "e", 0).to_dict()])
    assert Unreachable.tries == STORE_RETRIES + 1
    assert result.state == "FAILURE" and isinstance(result.result, StoreError)
    store.close()


def test_a_solo_worker_with_an_unusable_store_fails_at_start(tmp_path: Path) -> None:
    config = tmp_path / "summem.yaml"
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    config.write_text(
        f"store: sqlite:///{blocked}/s.db\ndispatch: {{broker: 'memory://', queue: q}}\n"
    )
    result = CliRunner().invoke(cli, ["worker", "--config", str(config), "--pool", "solo"])
    assert result.exit_code != 0
    assert "s.db" in result.output


def _closed_port() -> int:
    """A loopback port nothing listens on (bound then released)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("scheme", ["amqp", "redis"])
def test_summem_worker_with_an_unreachable_broker_fails_at_start_in_one_line(
    tmp_path: Path, scheme: str
) -> None:
    # a worker pointed at a broker nothing answers says so and exits, rather than retrying
    # for minutes with a log line a retry (a supervisor restarts it; a typo shows at once)
    config = tmp_path / "summem.yaml"
    broker = f"{scheme}://127.0.0.1:{_closed_port()}/"
    config.write_text(f"store: sqlite:///{tmp_path / 's.db'}\ndispatch: {{broker: '{broker}'}}\n")
    result = CliRunner().invoke(cli, ["worker", "--config", str(config), "--pool", "solo"])
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert "cannot connect to the broker" in lines[0] and broker.rstrip("/") in lines[0]
    assert "Traceback" not in result.output


def test_summem_worker_exits_with_the_workers_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a worker that stops on an unrecoverable error (Celery logs it and stops with status 1)
    # exits non-zero, so a supervisor sees it failed (Celery's worker_main drops the status)
    import celery  # type: ignore[import-untyped]

    monkeypatch.setattr(celery.Celery, "start", lambda self, argv=None: 1)
    config = tmp_path / "summem.yaml"
    config.write_text(f"store: sqlite:///{tmp_path / 's.db'}\ndispatch: {{broker: 'memory://'}}\n")
    result = CliRunner().invoke(cli, ["worker", "--config", str(config), "--pool", "solo"])
    assert result.exit_code == 1, result.output
