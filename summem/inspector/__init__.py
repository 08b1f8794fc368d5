"""``summem inspect``: a local, read-only web page over a store's sessions (``summem[inspect]``).

A leaf of the package: nothing in summem imports it (the CLI finds its command by name, see
:mod:`summem.cli.app`). The parts, bottom to top: :mod:`.source` opens the store read-only,
:mod:`.settings` gives the budget and tokenizer, :mod:`.reading` reconstructs reductions and
views, :mod:`.listing`, :mod:`.messages`, :mod:`.summaries`, :mod:`.chart` and :mod:`.recall`
prepare what the pages show, :mod:`.views` and :mod:`.session_page` build the pages over what
:mod:`.context` holds, :mod:`.app` serves them (Starlette, Jinja2, no JavaScript), and
:mod:`.command` is the ``summem inspect`` command (uvicorn).
"""

from __future__ import annotations

__all__: list[str] = []
