"""Services: one package each; importing this package registers the built-in ones."""

from clawarena.services import calendar, clinical, docs, drive, gmail, market, network, slack, swe, trading, travel  # noqa: F401  (each registers on import)
from clawarena.services.registry import all_tools, service, services, world_factory

__all__ = ["all_tools", "service", "services", "world_factory"]
