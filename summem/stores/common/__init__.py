"""What every backend shares below its own package: checking a new session, schema markers.

The backends (``memory``, ``sqlite/``, ``postgres/``, ``redis/``) sit above this layer and never
import each other (an import-linter contract in ``pyproject.toml``).
"""
