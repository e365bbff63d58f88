"""The REST surface: every Google binding is a real discovery method, and the counts the services promise."""

from collections import Counter

from clawarena.services import all_tools, services
from clawarena.services.discovery import find_method, method_index
from clawarena.services.docs.requests import HANDLERS


def google_bindings():
    """Bindings of the wire-compatible Google services (the domain services keep their own prefixes)."""
    google = {s.name for s in services() if s.wire_compatible and s.error_style != "slack"}
    return [t for t in all_tools() if t.rest is not None and t.service in google]


def test_only_the_five_real_apis_claim_wire_compatibility():
    assert sorted(s.name for s in services() if s.wire_compatible) == ["calendar", "docs", "drive", "gmail", "slack"]


def test_domain_services_serve_under_their_own_prefix():
    for t in all_tools():
        service = next((s for s in services() if s.name == t.service), None)
        if service is not None and not service.wire_compatible and t.rest is not None:
            assert t.rest.path.startswith(f"/{service.name}/"), (t.name, t.rest.path)


def test_every_google_binding_is_a_discovery_method_with_the_same_verb_and_path():
    unknown = [f"{t.name}: {t.rest.method} {t.rest.path}" for t in google_bindings() if find_method(t.rest.method, t.rest.path) is None]
    assert unknown == []


def test_upload_paths_are_the_discovery_upload_paths():
    for t in google_bindings():
        if t.rest.upload_path:
            method = find_method(t.rest.method, t.rest.path)
            assert method.upload_path and method.upload_path.replace("{+", "{") .split("{")[0] == t.rest.upload_path.split("{")[0], t.name


def test_surface_counts_meet_the_promised_minimums():
    per_api = Counter(find_method(t.rest.method, t.rest.path).id.split(".")[0] for t in google_bindings())
    slack = {t.rest.path for t in all_tools() if t.rest is not None and t.rest.path.startswith("/api/") and not t.rest.path.startswith("/api/_")}
    assert per_api["gmail"] >= 60 and per_api["calendar"] >= 35 and per_api["drive"] >= 40 and per_api["docs"] == 3
    assert len(slack) >= 45
    assert len(HANDLERS) >= 25
    assert len(method_index("gmail")) == 79  # the discovery documents the client ships (guards the oracle itself)


def test_every_tool_has_a_kind_a_description_and_a_closed_schema():
    for t in all_tools():
        assert t.kind.value in ("READ", "WRITE", "SEND") and t.description, t.name
        schema = t.json_schema()
        assert schema["type"] == "object" and schema["additionalProperties"] is False, t.name
