"""``ReductionJob``: "reduce session S from the state it had when the job was planned".

A job is plain data, so that any task engine can carry it: :meth:`ReductionJob.to_dict`
gives a dict of strings, numbers and ``None`` (JSON as it is), :meth:`ReductionJob.from_dict`
checks one whole and names the field that is wrong. It holds no message, no summary and no
secret: the worker reads the session from its own store, configured like the producer's.

The state it was planned from (``epoch``, ``version``) is what makes a job safe to run late,
twice or never: the worker commits only on that exact version (the store's compare-and-set),
so a job another commit overtook is a no-op, and of two copies of one job one commits.
"""

from __future__ import annotations

import math
import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import Any

from summem.errors import DispatchError

__all__ = ["JOB_FORMAT", "ReductionJob", "store_label"]

JOB_FORMAT = 1
"""The version of the job's dict; a worker refuses a format it does not know."""


def store_label(url: str) -> str:
    """A store URL without what may be secret: the user and password, secret-named parameters.

    ``postgresql://app:pw@db:5432/app?schema=t&password=x`` -> ``postgresql://db:5432/app?schema=t``.
    Both sides compute it, the producer from the URL it opened (variables expanded), the worker
    from its own settings, so ``${VARIABLE}`` references compare equal to their values.
    """
    from urllib.parse import parse_qsl, urlencode, urlsplit

    from summem._secrets import is_secret_name

    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # not a URL we can take apart: nothing of it travels
        return ""
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if not is_secret_name(k)])
    return f"{parts.scheme}://{host}{port}{parts.path}" + (f"?{query}" if query else "")


@dataclass(frozen=True)
class ReductionJob:
    """One reduction to run on a worker.

    Attributes:
        session_id: the session to reduce.
        epoch: the session's epoch when the job was planned (a clear or a new session
            changes it: the job is then stale).
        version: the session's version then; the worker commits only on this version.
        watermark: ``k`` then (for logs and lag reports).
        length: the history's length then (for logs).
        store: the producer's store, as :func:`store_label` names it (no user, password or
            secret parameter), or ``""``; a worker on another store refuses the job rather
            than reduce a session of the same name there.
        job_id: unique per planned job; a redelivered or duplicated copy keeps it (the
            worker's lease owner is derived from it, so a redelivery takes over at once).
        created_at: wall-clock time the job was planned (seconds since the epoch): the
            worker reports queue lag from it.
    """

    session_id: str
    epoch: str
    version: int
    watermark: int = 0
    length: int = 0
    store: str = ""
    job_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    created_at: float = field(default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        """The job as JSON-serialisable data (with its format number)."""
        return {"format": JOB_FORMAT, **asdict(self)}

    @classmethod
    def from_dict(cls, data: object) -> ReductionJob:
        """Read a job from :meth:`to_dict`'s output, checked whole.

        Raises:
            DispatchError: not a mapping, an unknown format, a missing or mistyped field
                (named), or an unknown field.
        """
        if not isinstance(data, dict):
            raise DispatchError(f"a reduction job must be a dict, got {type(data).__name__}")
        fmt = data.get("format", JOB_FORMAT)
        if fmt != JOB_FORMAT:
            raise DispatchError(
                f"reduction job format {fmt!r} is not one this summem reads ({JOB_FORMAT})"
            )
        known = {"format", *cls.__dataclass_fields__}
        unknown = sorted(str(k) for k in data if k not in known)
        if unknown:
            raise DispatchError(f"reduction job: unknown field(s) {', '.join(unknown)}")
        for name in ("session_id", "epoch", "version"):
            if name not in data:
                raise DispatchError(f"reduction job: missing field {name!r}")
        for name in ("session_id", "epoch", "store", "job_id"):
            if name in data and not isinstance(data[name], str):
                raise DispatchError(f"reduction job: {name} must be a string: {data[name]!r}")
        if not data["session_id"]:
            raise DispatchError("reduction job: session_id must not be empty")
        if "job_id" in data and not data["job_id"]:
            raise DispatchError("reduction job: job_id must not be empty")
        for name in ("version", "watermark", "length"):
            value = data.get(name, 0)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise DispatchError(
                    f"reduction job: {name} must be a non-negative integer: {value!r}"
                )
        created = data.get("created_at", 0.0)
        if (
            isinstance(created, bool)
            or not isinstance(created, (int, float))
            or not math.isfinite(created)
        ):
            raise DispatchError(f"reduction job: created_at must be a number: {created!r}")
        fields = {k: v for k, v in data.items() if k != "format"}
        if "created_at" in fields:
            fields["created_at"] = float(created)
        return cls(**fields)

    def lag(self, now: float | None = None) -> float:
        """Seconds from planning to ``now`` (the worker's clock; never negative)."""
        return max(0.0, (time.time() if now is None else now) - self.created_at)
