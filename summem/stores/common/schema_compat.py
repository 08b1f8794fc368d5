"""Which summem may use a store's data: its schema version and a "compatible down to" marker.

Every store records the schema version its data has (SQLite ``PRAGMA user_version``, the
PostgreSQL ``summem_schema_version`` row, the Redis ``<prefix>:schema`` hash). A summem that
knows an older schema used to refuse newer data outright, which blocks rolling a deploy back
after a migration. So each migration also declares the oldest schema version whose code can
still read *and write* the data safely once that migration has run (``COMPATIBLE`` beside
each store's ``MIGRATIONS``), and the store records, next to its version, the marker: the
highest value any applied migration declared (:func:`compatible_down_to`). A summem whose
schema is older than the stored one but not older than the marker opens it as it is, and
never migrates it down; otherwise it refuses with a :class:`SchemaVersionError` naming both
versions (:func:`check_schema`).

What a migration may declare: a version ``v`` below its own only when code knowing schema
``v`` neither fails on the new shape (it adds tables, nullable columns or columns with a
default, indexes) nor leaves data newer code misreads (newer code must accept what the older
code writes, e.g. rows without the new column's value, and catch up on them). A migration
that changes what existing rows mean declares its own version: older code is then refused.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Literal

from summem.errors import SchemaVersionError

__all__ = ["check_declarations", "check_schema", "compatible_down_to"]

logger = logging.getLogger("summem.stores")


def compatible_down_to(declared: Sequence[int], version: int) -> int:
    """The marker to record for data at ``version``: the most any applied migration declared."""
    return max(declared[:version], default=0)


def check_declarations(declared: Sequence[int], migrations: int) -> None:
    """Fail loudly (at import) on a declaration that cannot be right.

    One value per migration, each a version that exists and not newer than the migration's
    own (migration ``i`` brings the schema to ``i + 1``).
    """
    if len(declared) != migrations:
        raise AssertionError(f"{len(declared)} compatibility declarations for {migrations}")
    for i, value in enumerate(declared):
        if not 1 <= value <= i + 1:
            raise AssertionError(f"migration {i + 1} declares compatibility down to {value}")


def check_schema(
    where: str, *, stored: int, known: int, compatible: int | None
) -> Literal["current", "older", "newer"]:
    """How this summem may use data at ``stored``: as it is, after migrating it, or as newer.

    Args:
        where: what holds the data, for messages (``"'app.db'"``, ``"PostgreSQL schema
            'summem'"``).
        stored: the data's schema version.
        known: the newest schema version this summem knows.
        compatible: the data's "compatible down to" marker; ``None`` when it has none (then
            only a summem that knows ``stored`` may use it).

    Returns:
        ``"current"``, ``"older"`` (migrate it up), or ``"newer"`` (compatible: use it as it
        is; logged, since the data is not this summem's own shape).

    Raises:
        SchemaVersionError: ``stored`` is newer than ``known`` and not compatible with it.
    """
    if stored == known:
        return "current"
    if stored < known:
        return "older"
    if compatible is not None and compatible <= known:
        logger.warning(
            "%s has schema version %d, newer than this summem knows (%d); it is compatible "
            "down to %d, so it is used as it is (not migrated down)",
            where,
            stored,
            known,
            compatible,
        )
        return "newer"
    if compatible is None:
        why = "and records no marker saying an older summem may use it"
    else:
        why = f"and is compatible down to schema version {compatible} only"
    raise SchemaVersionError(
        f"{where} has schema version {stored}, newer than this summem knows ({known}), {why}: "
        "upgrade summem (to roll a deploy back past that migration, restore the backup taken "
        "before it)",
        stored=stored,
        known=known,
        compatible=compatible,
    )
