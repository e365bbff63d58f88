"""Services: one package each; importing this package registers the built-in ones."""

from clawarena.services import gmail  # noqa: F401  (registers on import)
from clawarena.services.registry import all_tools, service, services

__all__ = ["all_tools", "service", "services"]
