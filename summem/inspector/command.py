"""``summem inspect``: serve the inspector on this machine and open it in the browser.

Binds 127.0.0.1 on a free port by default (``--port`` picks one). With ``--host`` the page is
reachable from elsewhere, so a token is generated, printed in the URL, and checked on every
request. The store is opened read-only (see :mod:`summem.inspector.source`); the URL printed
never holds the store's password. Starlette, uvicorn and Jinja2 come with ``summem[inspect]``
and are imported only when the command runs.
"""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from summem.config.model import SummemConfig
    from summem.inspector.source import Source
    from summem.stores.base import Store

__all__ = ["LOOPBACK", "bind", "inspect", "page_address", "reachable", "serve"]

LOOPBACK = "127.0.0.1"


def _require_extra() -> None:
    from summem.errors import MissingDependencyError

    missing = []
    for module in ("starlette", "uvicorn", "jinja2"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    if missing:
        raise MissingDependencyError(", ".join(missing), "inspect")


def reachable(store: Store) -> None:
    """Read one listing row, so that a store that cannot be reached fails here, not in a page.

    Raises:
        StoreError: the store cannot be read (its message never holds a password).
    """
    from summem.stores.base import ListingStore

    if isinstance(store, ListingStore):
        store.session_infos(limit=1)
    else:
        store.list_sessions()


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one).

    Raises:
        ConfigurationError: the address cannot be bound (naming it and why).
    """
    from summem.errors import ConfigurationError

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        family, _, _, _, address = infos[0]
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(64)
    except OSError as exc:
        raise ConfigurationError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def serve(app: Starlette, sock: socket.socket) -> None:
    """Run ``app`` with uvicorn on ``sock`` until interrupted."""
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])


def page_address(host: str, port: int, token: str | None) -> str:
    """The URL to open (``host`` as given; an IPv6 address in brackets)."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    shown = f"[{shown}]" if ":" in shown else shown
    return f"http://{shown}:{port}/" + (f"?token={token}" if token else "")


@click.command(short_help="Open a read-only web page over a store's sessions.")
@click.option(
    "--store",
    help="A store URL, a SQLite file or a `summem replay --out` folder (default: the "
    "config's store).",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    help="summem.yaml whose budget, tokenizer and masking size the views (default: "
    "$SUMMEM_CONFIG, else ./summem.yaml if present, else the defaults).",
)
@click.option(
    "--port", type=click.IntRange(0, 65535), default=0, help="Port (default: a free one)."
)
@click.option(
    "--host",
    default=None,
    help="Listen on this address instead of 127.0.0.1; the page then needs the printed token.",
)
@click.option("--no-browser", is_flag=True, help="Print the address; do not open a browser.")
def inspect(
    store: str | None, config_path: str | None, port: int, host: str | None, no_browser: bool
) -> None:
    """Open a local, read-only web page over the sessions of a store.

    See what each session's model was shown at any turn, what every summary covered and
    dropped, what it cost, its branches, and search its history. Nothing is ever written to
    the store.
    """
    import secrets

    from summem.cli.common import load_settings

    _require_extra()
    from summem.inspector.app import create_app
    from summem.inspector.settings import budget_from_config
    from summem.inspector.source import open_source

    config = load_settings(config_path)
    source = open_source(store if store is not None else config.store)
    try:
        if config_path is None and source.settings is not None:
            config = _recorded(source, config)
        reachable(source.store)
        budget = budget_from_config(config)
        token = secrets.token_urlsafe(24) if host is not None else None
        listen = host if host is not None else LOOPBACK
        hosts: list[str] | None = ["*"] if token is not None else None
        app = create_app(source, budget, token=token, allowed_hosts=hosts)
        sock = bind(listen, port)
        address = page_address(listen, sock.getsockname()[1], token)
        click.echo(f"summem inspect: {source.shown} (read-only: {source.read_only})")
        if config.source.startswith("<"):  # no summem.yaml: the chart's lines are the defaults'
            click.echo(
                "views sized with summem's default budget: give --config the summem.yaml the "
                "sessions were written with (the chart's threshold and target come from it)"
            )
        click.echo(f"open {address}  (Ctrl-C stops it)")
        if token is not None:
            click.echo("the page is reachable beyond this machine: it needs the token above")
        if not no_browser:
            _open_browser(address)
        serve(app, sock)
    finally:
        source.close()


def _recorded(source: Source, config: SummemConfig) -> SummemConfig:
    """The settings a replay folder recorded, else ``config`` (with a line saying why)."""
    from summem.config.model import SummemConfig
    from summem.errors import ConfigurationError

    where = f"{source.settings_file} (recorded by summem replay)"
    try:
        recorded = SummemConfig.from_dict(source.settings, source=where)
    except ConfigurationError as exc:
        click.echo(f"the replay's recorded settings are not usable, so not used: {exc}")
        return config
    click.echo(f"views sized with the settings the replay ran with: {source.settings_file}")
    return recorded


def _open_browser(address: str) -> Any:
    import webbrowser

    try:
        return webbrowser.open(address)
    except webbrowser.Error:
        return False  # no browser here: the address is printed
