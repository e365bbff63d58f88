"""The Google discovery documents that google-api-python-client ships, as conformance oracles.

- `method_index`: every method id with its HTTP verb and full path template.
- `response_schema`: a strict JSON Schema (Draft 7) for a method's response,
  converted from the discovery schemas: `$ref` to `#/definitions/X`, int64-like
  formats dropped (those values travel as strings), unknown fields forbidden.

Needs the `dev` extra (google-api-python-client); imported only by tests and scripts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

APIS = {"gmail": "v1", "calendar": "v3", "drive": "v3", "docs": "v1"}
_DROP = {"description", "id", "annotations", "readOnly", "enumDescriptions", "deprecated", "enumDeprecated", "default", "pattern", "location", "required", "repeated", "minimum", "maximum"}


@lru_cache(maxsize=None)
def discovery(api: str) -> dict[str, Any]:
    path = resources.files("googleapiclient") / "discovery_cache" / "documents" / f"{api}.{APIS[api]}.json"
    return json.loads(path.read_text())


@dataclass(frozen=True)
class DiscoveryMethod:
    id: str
    verb: str
    path: str  # full path from the host root, e.g. /drive/v3/files/{fileId}
    upload_path: str | None
    response_ref: str | None


def _walk(resources_: dict[str, Any]):
    for res in resources_.values():
        yield from res.get("methods", {}).values()
        yield from _walk(res.get("resources", {}))


@lru_cache(maxsize=None)
def method_index(api: str) -> dict[str, DiscoveryMethod]:
    doc = discovery(api)
    base = "/" + doc.get("servicePath", "")
    out = {}
    for m in _walk(doc.get("resources", {})):
        path = m.get("flatPath") or m["path"]
        upload = m.get("mediaUpload", {}).get("protocols", {}).get("simple", {}).get("path")
        out[m["id"]] = DiscoveryMethod(
            id=m["id"],
            verb=m["httpMethod"],
            path=(base + path).replace("//", "/"),
            upload_path=upload,
            response_ref=(m.get("response") or {}).get("$ref"),
        )
    return out


def normalize(path: str) -> str:
    """A path template with parameter names erased: /gmail/v1/users/{}/messages/{}."""
    return re.sub(r"\{\+?[^}]+\}", "{}", path)


def find_method(verb: str, path: str) -> DiscoveryMethod | None:
    key = (verb.upper(), normalize(path))
    for api in APIS:
        for m in method_index(api).values():
            if (m.verb, normalize(m.path)) == key:
                return m
    return None


def _convert(node: Any, strict: bool) -> Any:
    if isinstance(node, list):
        return [_convert(n, strict) for n in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return {"$ref": f"#/definitions/{node['$ref']}"}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROP:
            continue
        if key == "format":
            continue  # int64/uint64/byte/date-time: the value types already say enough
        if key == "type" and value == "any":
            continue
        if key == "properties":
            out[key] = {k: _convert(v, strict) for k, v in value.items()}
        elif key in ("items", "additionalProperties"):
            out[key] = _convert(value, strict)
        else:
            out[key] = value
    if strict and out.get("type") == "object" and "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


@lru_cache(maxsize=None)
def definitions(api: str, strict: bool = True) -> dict[str, Any]:
    return {name: _convert(schema, strict) for name, schema in discovery(api).get("schemas", {}).items()}


def response_schema(method_id: str, strict: bool = True) -> dict[str, Any] | None:
    api = method_id.split(".")[0]
    method = method_index(api)[method_id]
    if method.response_ref is None:
        return None
    return {"$schema": "http://json-schema.org/draft-07/schema#", "$ref": f"#/definitions/{method.response_ref}", "definitions": definitions(api, strict)}
