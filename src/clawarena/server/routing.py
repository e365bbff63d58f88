"""Per-request work done once: finding a request's route, the base URL of a request.

A world app has one route per REST-bound tool of every service (over 200), and the router
tries them in order; a pattern match per route was a large part of a cheap read's time.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute
from starlette.convertors import (
    FloatConvertor,
    IntegerConvertor,
    StringConvertor,
    UUIDConvertor,
)
from starlette.datastructures import URL, URLPath
from starlette.routing import BaseRoute, Match, NoMatchFound
from starlette.types import Receive, Scope, Send

BASE_URL_CACHE_SIZE = 256  # the Host header is the client's: bound what it can make us keep


# Parameters whose pattern stays inside one path segment; any other (`{x:path}`) can span several.
_ONE_SEGMENT = (StringConvertor, IntegerConvertor, FloatConvertor, UUIDConvertor)


class _Node:
    __slots__ = ("ends", "literal", "param")

    def __init__(self) -> None:
        self.literal: dict[str, _Node] = {}
        self.param: _Node | None = None  # a segment holding a `{parameter}`
        self.ends: list[int] = []  # routes whose last segment is this node


class RouteIndex(BaseRoute):
    """The app's API routes behind one router entry, found by path segments instead of one by one.

    A trie over each route's segments (literal text, or "a parameter is here") gives, for a
    request path, the few routes whose pattern could match it; those are tried in their
    original order with their own `matches`, so the first full match, or else the first
    partial one (a 405), is the route the router's linear scan would have picked. Routes the
    trie cannot place (a parameter spanning segments) are tried for every path, in order; an
    ASGI root_path shifts the path, so then every route is tried.
    """

    path_format = None  # per request: the chosen route's, which FastAPI reads from the scope

    def __init__(self, routes: list[BaseRoute]) -> None:
        self.routes = list(routes)
        self._root = _Node()
        self._always: list[int] = []
        for i, route in enumerate(self.routes):
            path = getattr(route, "path", None)
            convertors = getattr(route, "param_convertors", None)
            if not isinstance(path, str) or not path.startswith("/") or convertors is None or not all(isinstance(c, _ONE_SEGMENT) for c in convertors.values()):
                self._always.append(i)
                continue
            node = self._root
            for seg in path.split("/")[1:]:
                if "{" in seg:  # a parameter, maybe with literal text around it: the match decides
                    node.param = node.param or _Node()
                    node = node.param
                else:
                    node = node.literal.setdefault(seg, _Node())
            node.ends.append(i)

    def candidates(self, path: str) -> list[int]:
        """The indexes of the routes that could match `path`, in their original order."""
        if not path.startswith("/"):
            return list(range(len(self.routes)))
        nodes = [self._root]
        for seg in path.split("/")[1:]:
            step: list[_Node] = []
            for node in nodes:
                if (lit := node.literal.get(seg)) is not None:
                    step.append(lit)
                if node.param is not None and seg:  # a parameter never matches an empty segment
                    step.append(node.param)
            if not step:
                return self._always
            nodes = step
        found = [i for node in nodes for i in node.ends]
        if not found:
            return self._always
        return sorted(found + self._always) if self._always or len(nodes) > 1 else found

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] != "http" or scope.get("root_path"):
            order: Iterable[int] = range(len(self.routes))
        else:
            order = self.candidates(scope["path"])
        partial: Scope | None = None
        for i in order:
            route = self.routes[i]
            match, child = route.matches(scope)
            if match == Match.FULL:
                return match, {**child, _CHOSEN: route}
            if match == Match.PARTIAL and partial is None:
                partial = {**child, _CHOSEN: route}
        return (Match.PARTIAL, partial) if partial is not None else (Match.NONE, {})

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        await scope[_CHOSEN].handle(scope, receive, send)

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        for route in self.routes:
            try:
                return route.url_path_for(name, **path_params)
            except NoMatchFound:
                pass
        raise NoMatchFound(name, path_params)


_CHOSEN = "clawarena.route"  # the scope key naming the route RouteIndex.matches picked


def index_routes(app: FastAPI) -> list[BaseRoute]:
    """Put the app's trailing run of API routes (everything added after FastAPI's own docs routes)
    behind one RouteIndex; returns the flat list, which the OpenAPI document is built from."""
    routes = app.router.routes
    start = len(routes)
    while start > 0 and isinstance(routes[start - 1], APIRoute):
        start -= 1
    flat = list(routes)
    routes[start:] = [RouteIndex(routes[start:])]
    indexed = list(routes)

    def openapi() -> dict[str, Any]:  # FastAPI's documented override point: the schema over the flat routes
        if app.openapi_schema is None:
            routes[:] = flat  # synchronous, on the loop's one thread: no request sees the swap
            try:
                FastAPI.openapi(app)
            finally:
                routes[:] = indexed
        return app.openapi_schema  # type: ignore[return-value]

    app.openapi = openapi  # type: ignore[method-assign]
    return flat


class BaseUrls:
    """`str(request.base_url).rstrip("/")` for a scope, computed once per (scheme, server, Host, root path)."""

    def __init__(self, size: int = BASE_URL_CACHE_SIZE) -> None:
        self.size = size
        self._known: dict[tuple[Any, ...], str] = {}

    def of(self, scope: Scope) -> str:
        host = next((v for k, v in scope.get("headers", ()) if k == b"host"), None)
        root = scope.get("app_root_path", scope.get("root_path", ""))
        key = (scope.get("scheme"), scope.get("server"), host, root)
        known = self._known.get(key)
        if known is None:
            # the same construction as starlette's Request.base_url
            base_scope = dict(scope, path=root if root.endswith("/") else root + "/", query_string=b"", root_path=root)
            known = str(URL(scope=base_scope)).rstrip("/")
            if len(self._known) >= self.size:
                self._known.clear()
            self._known[key] = known
        return known
