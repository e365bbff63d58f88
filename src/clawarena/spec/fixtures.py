"""Registry of the fixture models services declare, so the loader can validate seed data.

Services register their fixture model on import; the spec layer knows only the
registry, never the services themselves.
"""

from __future__ import annotations

import importlib

from pydantic import BaseModel

_MODELS: dict[str, type[BaseModel]] = {}
# Packages whose import registers the built-in services (plugins may add more).
PLUGIN_PACKAGES: list[str] = ["clawarena.services"]


def register_fixture_model(service: str, model: type[BaseModel]) -> None:
    _MODELS[service] = model


def fixture_models() -> dict[str, type[BaseModel]]:
    for package in PLUGIN_PACKAGES:
        importlib.import_module(package)
    return dict(_MODELS)
