"""The viewer's web app: the page (static files shipped with the package, no build step, no CDN)
and a JSON API over the run folders it was given.

Routes:
- `/`, `/runs/{run}/trials/{unit}`, `/runs/{run}/trials/{unit}/events/{event}`,
  `/runs/{run}/compare/{unit}`: the page (the script reads the path);
- `/api/runs`, `/api/facets`, `/api/trials?FILTER=VALUE&q=&sort=&desc=&offset=&limit=`;
- `/api/runs/{run}/trials/{unit}` (the trial page's data, with the same task's other variants);
- `/api/runs/{run}/context/{event}/{unit}`: a model step's whole context, resolved;
- `/api/runs/{run}/content/{ref}`: one stored value (a model's context message, its tool list).

It serves 127.0.0.1 only; the Host header must name it (a page elsewhere cannot reach it through
DNS rebinding), and the page's content security policy allows only its own script and style:
attack material is text in a trace, rendered as text, never as markup.
"""

from __future__ import annotations

from importlib import resources
import json
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import ValidationError
from starlette.middleware.trustedhost import TrustedHostMiddleware

from clawarena.runner.content_store import ContentStoreError
from clawarena.view.context import ContextError, full_context
from clawarena.view.index import FILTERS, Query, TrialIndex, ViewError
from clawarena.view.trial import trial_page
from clawarena.world.ledger import Ledger

STATIC = {"viewer.js": "text/javascript", "viewer.css": "text/css", "index.html": "text/html"}
CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'"
QUERY_KEYS = {"q", "sort", "desc", "offset", "limit"}


def _static(name: str) -> bytes:
    return resources.files("clawarena.view").joinpath("static", name).read_bytes()


class AsciiJSON(JSONResponse):
    """JSON with non-ASCII escaped: an agent may write any string, a lone surrogate included, which a
    UTF-8 encoder refuses and the escape `\\udc80` carries (JSON.parse reads it)."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def _error(status: int, message: str) -> JSONResponse:
    return AsciiJSON({"error": message}, status_code=status)


def _int(params: dict[str, str], name: str, default: int) -> int:
    try:
        return int(params.get(name, default))
    except ValueError:
        raise ViewError(f"{name}: not a whole number: {params[name]!r}") from None


def query_of(params: dict[str, str]) -> Query:
    unknown = sorted(set(params) - set(FILTERS) - QUERY_KEYS)
    if unknown:
        raise ViewError(f"unknown parameter {unknown[0]!r}; filters: {', '.join(FILTERS)}; and {', '.join(sorted(QUERY_KEYS))}")
    filters = {k: v for k, v in params.items() if k in FILTERS and v != ""}
    return Query(filters=filters, text=params.get("q", ""), sort=params.get("sort", "line"), descending=params.get("desc", "") in ("1", "true", "yes"),
                 offset=_int(params, "offset", 0), limit=_int(params, "limit", 100))  # fmt: skip


def build_app(index: TrialIndex, hosts: list[str] | None = None) -> FastAPI:
    app = FastAPI(title="clawarena view", docs_url=None, redoc_url=None, openapi_url=None, default_response_class=AsciiJSON)
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=hosts or ["127.0.0.1", "localhost"])
    page = _static("index.html")

    @app.middleware("http")
    async def headers(request: Request, call_next):
        response = await call_next(request)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cache-Control"] = "no-store"
        return response

    def html() -> Response:
        return Response(page, media_type="text/html; charset=utf-8")

    # A unit id holds '/' (the scenario id's), so it is a path parameter; the event route comes first.
    for path in ("/", "/runs/{run}/trials/{unit:path}/events/{event}", "/runs/{run}/trials/{unit:path}", "/runs/{run}/compare/{unit:path}"):
        app.add_api_route(path, html, methods=["GET"], include_in_schema=False)

    @app.get("/static/{name}")
    def static(name: str) -> Response:
        if name not in STATIC:
            return _error(404, f"no static file {name!r}")
        return Response(_static(name), media_type=f"{STATIC[name]}; charset=utf-8")

    @app.get("/api/runs")
    def runs() -> dict[str, Any]:
        return {"runs": [run.summary() for run in index.runs.values()]}

    @app.get("/api/facets")
    def facets() -> dict[str, Any]:
        return {"facets": index.facets, "total": len(index.rows)}

    @app.get("/api/trials")
    def trials(request: Request) -> Any:
        try:
            return index.select(query_of(dict(request.query_params)))
        except ViewError as exc:
            return _error(400, str(exc))

    def found(run: str, unit: str):
        if run not in index.runs:
            return None, _error(404, f"no run {run!r}; runs: {', '.join(index.runs)}")
        try:
            return index.row(run, unit), None
        except KeyError as exc:
            return None, _error(404, str(exc.args[0]))

    @app.get("/api/runs/{run}/trials/{unit:path}")
    def trial(run: str, unit: str) -> Any:
        row, problem = found(run, unit)
        if problem:
            return problem
        folder = index.runs[run]
        try:
            record = folder.record(unit)
        except (OSError, ValueError) as exc:  # trials.jsonl changed under the viewer
            return _error(409, f"trial {unit}: its record cannot be read again ({exc}); restart the viewer")
        try:
            data = trial_page(record, folder.trace(unit), folder.store.content)
        except (KeyError, TypeError, ValueError, AttributeError, ValidationError) as exc:  # a trace edited or cut by hand
            return _error(422, f"trace of {unit}: cannot be shown ({type(exc).__name__}: {exc})")
        data["run"] = run
        data["counterparts"] = [r.public() for r in index.counterparts(row)]
        return data

    @app.get("/api/runs/{run}/context/{event}/{unit:path}")
    def context(run: str, event: str, unit: str) -> Any:
        """A model step's whole context (its prior steps' messages, then its own), resolved."""
        row, problem = found(run, unit)
        if problem:
            return problem
        folder = index.runs[run]
        trace = folder.trace(unit)
        try:
            ledger = Ledger.load(trace.get("ledger") or [])
            return full_context(ledger, folder.store.content.read, event)
        except (ContextError, ContentStoreError) as exc:
            return _error(404, str(exc))
        except (KeyError, TypeError, ValueError, AttributeError, ValidationError) as exc:
            return _error(422, f"trace of {unit}: cannot be shown ({type(exc).__name__}: {exc})")

    @app.get("/api/runs/{run}/content/{ref}")
    def content(run: str, ref: str) -> Any:
        if run not in index.runs:
            return _error(404, f"no run {run!r}")
        try:
            return {"ref": ref, "value": index.runs[run].store.content.read(ref)}
        except ContentStoreError as exc:
            return _error(404, str(exc))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        return _error(400, f"{'.'.join(str(x) for x in first.get('loc', ()))}: {first.get('msg', 'bad request')}")

    @app.exception_handler(404)
    async def not_found(request: Request, exc: Exception) -> JSONResponse:
        return _error(404, f"no such page: {request.url.path}")

    return app
