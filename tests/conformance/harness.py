"""Serve a world on 127.0.0.1 and drive it with the official clients.

Usage in a conformance test:

    def test_list(served):
        world = served.start({"gmail": {"messages": [...]}})
        gmail = served.google("gmail", "alice")
        resp = gmail.users().messages().list(userId="me").execute()
        assert_schema("gmail.users.messages.list", resp)

Principals in every conformance world: alice, bob, carol (all @northwind.example).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

import google.oauth2.credentials
import httplib2
import jsonschema
from googleapiclient.discovery import build

from clawarena.gateway import Gateway
from clawarena.services import services
from clawarena.server.app import WorldApp
from clawarena.services.discovery import response_schema
from clawarena.server.serve import RunningServer, start_in_thread
from clawarena.spec.checks import CountInRange
from clawarena.spec.models import AgentSpec, PrincipalSpec, Scenario, TaskSpec, WorldSpec
from clawarena.world.build import WorldFactory
from clawarena.world.world import World

PRINCIPALS = [
    PrincipalSpec(id="alice", name="Alice Chen", email="alice@northwind.example", org="Northwind"),
    PrincipalSpec(id="bob", name="Bob Ortiz", email="bob@northwind.example", org="Northwind"),
    PrincipalSpec(id="carol", name="Carol Diaz", email="carol@northwind.example", org="Northwind"),
]
# Where the Google clients send each API (api_endpoint replaces rootUrl + servicePath).
API_PATHS = {"gmail": ("v1", ""), "calendar": ("v3", "/calendar/v3/"), "drive": ("v3", "/drive/v3/"), "docs": ("v1", "")}


def world_scenario(fixtures: dict[str, Any], now: str = "2026-03-02T09:00:00Z", principals: list[PrincipalSpec] | None = None) -> Scenario:
    people = principals or PRINCIPALS
    task = TaskSpec(
        id="conformance",
        title="conformance world",
        world=WorldSpec(now=now),
        principals=people,
        agents=[AgentSpec(id=f"{p.id}-agent", principal=p.id, tools=["*"]) for p in people],
        utility=[CountInRange(kind="count_in_range", table="gmail_messages", min=0, must_pass=True)],  # a world, not a task: any state passes
        reference={},
        fixtures=fixtures,
    )
    return Scenario(id="conformance/benign", task=task, variant="benign", fixtures=fixtures, utility=task.utility)


@dataclass
class Served:
    """One served world per test; `start` builds and serves it, teardown stops it."""

    world: World | None = None
    server: RunningServer | None = None
    gateway: Gateway | None = None
    calls: list[str] = field(default_factory=list)

    def start(self, fixtures: dict[str, Any] | None = None, *, now: str = "2026-03-02T09:00:00Z", seed: int = 0, tls: tuple[str, str] | None = None) -> World:
        self.world = WorldFactory(services()).build(world_scenario(fixtures or {}, now), seed)
        self.gateway = Gateway(self.world, services())
        app = WorldApp(self.gateway, services()).app
        self.server = start_in_thread(app, ssl_certfile=tls[0] if tls else None, ssl_keyfile=tls[1] if tls else None)
        return self.world

    def token(self, principal: str) -> str:
        assert self.world is not None
        return self.world.directory.tokens[principal]

    def google(self, api: str, principal: str = "alice"):
        """The official google-api-python-client for `api`, as `principal`."""
        assert self.server is not None
        version, prefix = API_PATHS[api]
        creds = google.oauth2.credentials.Credentials(token=self.token(principal))
        options = {"api_endpoint": self.server.url + prefix}
        if self.server.scheme == "https":
            import google_auth_httplib2

            http = google_auth_httplib2.AuthorizedHttp(creds, http=httplib2.Http(disable_ssl_certificate_validation=True))
            return build(api, version, static_discovery=True, client_options=options, http=http)
        return build(api, version, static_discovery=True, client_options=options, credentials=creds)

    def slack(self, principal: str = "alice"):
        """The official slack_sdk WebClient, as `principal`."""
        from slack_sdk import WebClient

        assert self.server is not None
        return WebClient(token=self.token(principal), base_url=self.server.url + "/api/")

    def rest_calls(self) -> list[str]:
        """Tool names called over REST in this world (for the coverage manifest)."""
        if self.world is None:
            return []
        return [e.payload["tool"] for e in self.world.ledger.of_kind("tool_call") if e.payload.get("source") == "rest"]

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()


def assert_schema(method_id: str, response: Any) -> None:
    """Validate a Google response against the strict JSON Schema from the discovery document."""
    schema = response_schema(method_id)
    assert schema is not None, f"{method_id} has no response schema"
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(response), key=lambda e: list(e.path))
    assert not errors, f"{method_id}: " + "; ".join(f"{'/'.join(map(str, e.path)) or '<root>'}: {e.message}" for e in errors[:5])


def record_coverage(nodeid: str, tools: list[str]) -> None:
    out = os.environ.get("CLAWARENA_COVERAGE_OUT")
    if not out or not tools:
        return
    with open(out, "a", encoding="utf-8") as fh:
        for t in sorted(set(tools)):
            fh.write(json.dumps({"test": nodeid, "tool": t}) + "\n")
