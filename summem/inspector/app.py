"""The inspector's web app: Starlette routes rendering Jinja2 templates, read-only, no JavaScript.

Safe by construction, since conversation content is untrusted (users and tools write it):

- every value reaches the page through a Jinja2 template with autoescape on, and nothing is
  marked safe; the chart is SVG built from numbers;
- the pages hold no script at all, and every response carries a Content-Security-Policy that
  allows none (``script-src 'none'``) and nothing inline, plus ``nosniff``, no referrer, no
  framing and no caching;
- only ``GET`` and ``HEAD`` are answered (the store is only read);
- requests must name an expected host (a DNS-rebinding page cannot reach a local port);
- with a token (required when the app listens beyond 127.0.0.1), every request must carry it:
  ``?token=`` once (answered with a cookie, HttpOnly and SameSite=Strict, and a redirect to the
  same page without it) or the cookie; anything else gets 401;
- the store URL is shown with its password masked.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader
from starlette.applications import Starlette
from starlette.datastructures import URL
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from summem._version import __version__
from summem.inspector.context import BadRequestError, Inspector, NotFoundError
from summem.inspector.recall import Recall
from summem.inspector.settings import Budget
from summem.inspector.source import Source

__all__ = ["CSP", "SECURITY_HEADERS", "TOKEN_COOKIE", "create_app", "page_url"]

CSP = (
    "default-src 'self'; script-src 'none'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'; img-src 'self'; style-src 'self'"
)
"""No script at all, nothing inline, nothing from elsewhere."""
SECURITY_HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}
TOKEN_COOKIE = "summem_inspect_token"


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("summem.inspector", "templates"),
        autoescape=True,  # every template, whatever its name
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["version"] = __version__
    env.globals["url"] = page_url
    env.filters["money"] = lambda v: f"${v:,.4f}" if v else "$0"
    env.filters["num"] = lambda v: f"{v:,}"
    env.filters["when"] = lambda v: str(v).replace("T", " ").removesuffix("+00:00")
    return env


def page_url(path: str, **params: object) -> str:
    """``path`` with the given query parameters (``None`` ones left out), percent-encoded."""
    query = urlencode({k: str(v) for k, v in params.items() if v is not None and v != ""})
    return f"{path}?{query}" if query else path


def _same(given: str, token: str) -> bool:
    """``given == token`` in constant time (as UTF-8 bytes: any text a request carries)."""
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), token.encode("utf-8"))


class _Guard:
    """Security headers on every response, and the token check (see the module docstring)."""

    def __init__(self, app: ASGIApp, *, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v)
                    for k, v in message.get("headers", [])
                    if k.decode("latin-1").lower() not in SECURITY_HEADERS
                ]
                headers += [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message["headers"] = headers
            await send(message)

        if scope["method"] not in ("GET", "HEAD"):
            response: Response = PlainTextResponse(
                "405: the inspector is read-only (GET only)", status_code=405
            )
            await response(scope, receive, with_headers)
            return
        if self.token is not None:
            request = Request(scope)
            given = request.query_params.get("token")
            if given is not None and _same(given, self.token):
                url = URL(scope=scope).remove_query_params("token")
                path = "/" + url.path.lstrip("/")  # never //elsewhere (another site)
                target = path + (f"?{url.query}" if url.query else "")
                response = RedirectResponse(target, status_code=303)
                response.set_cookie(
                    TOKEN_COOKIE, self.token, httponly=True, samesite="strict", path="/"
                )
                await response(scope, receive, with_headers)
                return
            cookie = request.cookies.get(TOKEN_COOKIE, "")
            if not _same(cookie, self.token):
                response = PlainTextResponse(
                    "401: this inspector needs its token: open the URL `summem inspect` printed "
                    "(it ends with ?token=...)",
                    status_code=401,
                )
                await response(scope, receive, with_headers)
                return
        await self.app(scope, receive, with_headers)


Handler = Callable[[Request], Awaitable[Response]]


def create_app(
    source: Source,
    budget: Budget,
    *,
    token: str | None = None,
    allowed_hosts: list[str] | None = None,
) -> Starlette:
    """The inspector's ASGI app over an opened store.

    Args:
        source: the store, opened read-only (:func:`~summem.inspector.source.open_source`).
        budget: how views are sized (:func:`~summem.inspector.settings.budget_from_config`).
        token: when set, every request must carry it (see the module docstring).
        allowed_hosts: the ``Host`` names accepted (default: ``127.0.0.1`` and ``localhost``).
    """
    from summem.inspector import views
    from summem.inspector.session_page import session_page

    inspector = Inspector(source, budget, Recall(source.store), token)
    env = _environment()
    env.globals["store_url"] = source.shown
    env.globals["read_only"] = source.read_only

    def page(build: Callable[[Inspector, Request], tuple[str, dict[str, Any]]]) -> Handler:
        async def endpoint(request: Request) -> Response:
            from starlette.concurrency import run_in_threadpool

            return await run_in_threadpool(_render, build, request)

        return endpoint

    def _render(
        build: Callable[[Inspector, Request], tuple[str, dict[str, Any]]], request: Request
    ) -> Response:
        from summem.errors import InvalidSessionIdError, SummemError

        status = 200
        try:
            with inspector.lock:
                name, context = build(inspector, request)
            if name == "":  # a download, already rendered
                return context["response"]  # type: ignore[no-any-return]
        except (BadRequestError, InvalidSessionIdError) as exc:
            name, context, status = "error.html", {"title": "Bad request", "error": str(exc)}, 400
        except NotFoundError as exc:
            name, context, status = "error.html", {"title": "Not found", "error": str(exc)}, 404
        except SummemError as exc:
            from summem._secrets import mask_url

            text = str(exc).replace(source.url, source.shown)
            context = {"title": "The store failed", "error": mask_url(text)}
            name, status = "error.html", 500
        html = env.get_template(name).render(**context)
        return HTMLResponse(html, status_code=status)

    async def not_found(request: Request, exc: Exception) -> Response:
        html = env.get_template("error.html").render(
            title="Not found", error=f"no page at {request.url.path}"
        )
        return HTMLResponse(html, status_code=404)

    routes = [
        Route("/", page(views.sessions_page)),
        Route("/session", page(session_page)),
        Route("/branch", page(views.branch_page)),
        Route("/export", page(views.export_download)),
        Mount("/static", StaticFiles(packages=[("summem.inspector", "static")]), name="static"),
    ]
    hosts = allowed_hosts or ["127.0.0.1", "localhost"]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(_Guard, token=token),
            Middleware(TrustedHostMiddleware, allowed_hosts=hosts),
        ],
        exception_handlers={404: not_found},
    )
    app.state.inspector = inspector
    return app
