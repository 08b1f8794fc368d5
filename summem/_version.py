"""summem's version, in one place (read by hatch, the CLI and the evals' reports)."""

__all__ = ["__version__"]

__version__ = "0.1.0"
