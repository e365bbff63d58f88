"""The registry of service plugins; a service registers itself on import."""

from __future__ import annotations

from clawarena.services.base import Service
from clawarena.spec import catalog
from clawarena.tools.core import Tool

_SERVICES: dict[str, Service] = {}


def register_service(service: Service) -> Service:
    if service.name in _SERVICES:
        raise ValueError(f"service {service.name!r} is registered twice")
    for t in service.tools:
        object.__setattr__(t, "service", service.name)
    _SERVICES[service.name] = service
    catalog.register_service(service)  # what task files may name: checked at load
    return service


def services() -> list[Service]:
    return [_SERVICES[name] for name in sorted(_SERVICES)]


def service(name: str) -> Service:
    return _SERVICES[name]


def all_tools() -> list[Tool]:
    return [t for s in services() for t in s.tools]


def world_factory():
    """A WorldFactory over every registered service, with the seeded filler."""
    from clawarena.services.filler import filler_fixtures
    from clawarena.world.build import WorldFactory

    return WorldFactory(services(), filler=filler_fixtures)
