"""``summem.yaml``: one validated file for the Python API, the wrappers and the CLI.

:mod:`summem.config.model` is the whole file and its factories (:class:`SummemConfig`,
:func:`load_config`), :mod:`summem.config.sections` its ``budget:``, ``summary:`` and
``retries:`` sections, and :mod:`summem.config.io` reading it safely and naming what is wrong.
"""

from summem.config.model import (
    CONFIG_ENV,
    DEFAULT_CONFIG_FILE,
    DEFAULT_STORE,
    BudgetConfig,
    RetriesConfig,
    SummaryConfig,
    SummemConfig,
    load_config,
    parse_config,
)

__all__ = [
    "CONFIG_ENV",
    "DEFAULT_CONFIG_FILE",
    "DEFAULT_STORE",
    "BudgetConfig",
    "RetriesConfig",
    "SummaryConfig",
    "SummemConfig",
    "load_config",
    "parse_config",
]
