"""A shared Drive world for the Drive and Docs conformance tests."""

from __future__ import annotations

import copy
from typing import Any

import pytest

FOLDER = "application/vnd.google-apps.folder"
GDOC = "application/vnd.google-apps.document"

WORLD: dict[str, Any] = {
    "drive": {
        "groups": [{"email": "eng@northwind.example", "name": "Engineering", "members": ["carol"]}],
        "files": [
            {"id": "fold-proj", "name": "Projects", "owner": "alice", "mime_type": "folder",
             "permissions": [{"email": "bob@northwind.example", "role": "writer"}], "created": "2026-02-01T10:00:00Z"},
            {"id": "f-plan", "name": "Roadmap plan.txt", "owner": "alice", "content": "Q3 roadmap: launch the invoice portal",
             "parents": ["fold-proj"], "created": "2026-02-10T10:00:00Z", "starred": True},
            {"id": "f-salary", "name": "Salaries 2026.csv", "owner": "alice", "mime_type": "text/csv",
             "content": "name,salary\nbob,120000\ncarol,99000", "created": "2026-02-12T10:00:00Z"},
            {"id": "d-notes", "name": "Team notes", "owner": "alice", "mime_type": "doc",
             "content": "Weekly sync\nBudget approved for the offsite", "created": "2026-02-20T10:00:00Z",
             "permissions": [{"email": "carol@northwind.example", "role": "commenter"}],
             "comments": [{"id": "c1", "author": "carol", "content": "Which offsite?", "quoted": "offsite",
                           "replies": [{"author": "alice", "content": "The March one"}]}]},
            {"id": "f-bob", "name": "Bob private.txt", "owner": "bob", "content": "bob's secret draft", "created": "2026-02-15T10:00:00Z"},
            {"id": "f-public", "name": "Press kit.txt", "owner": "bob", "content": "public press text",
             "permissions": [{"type": "anyone", "role": "reader"}], "created": "2026-02-16T10:00:00Z"},
            {"id": "f-domain", "name": "Handbook.txt", "owner": "bob", "content": "company handbook",
             "permissions": [{"type": "domain", "domain": "northwind.example", "role": "reader", "discoverable": True}],
             "created": "2026-02-17T10:00:00Z"},
            {"id": "f-eng", "name": "Eng runbook.txt", "owner": "bob", "content": "restart the service",
             "permissions": [{"type": "group", "email": "eng@northwind.example", "role": "writer"}], "created": "2026-02-18T10:00:00Z"},
            {"id": "f-old", "name": "Old draft.txt", "owner": "alice", "content": "obsolete", "trashed": True,
             "created": "2026-01-05T10:00:00Z"},
        ],
    }
}


def world(extra_files: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    out = copy.deepcopy(WORLD)
    out["drive"]["files"].extend(extra_files or [])
    return out


def names(resp: dict[str, Any]) -> list[str]:
    return sorted(f["name"] for f in resp.get("files", []))


@pytest.fixture
def https(served, tls_pair):
    """tls_pair for `served.start(..., tls=https)`; closes the clients' connections before the server stops
    (uvicorn otherwise waits out its shutdown timeout on open TLS keep-alive connections)."""
    clients = []
    original = served.google

    def google(api: str, principal: str = "alice"):
        client = original(api, principal)
        clients.append(client)
        return client

    served.google = google
    yield tls_pair
    for client in clients:
        http = getattr(client._http, "http", client._http)
        for conn in list(getattr(http, "connections", {}).values()):
            conn.close()
