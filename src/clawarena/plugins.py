"""The built-in plugins: importing this module registers them in the spec catalog.

Declared in pyproject.toml as the entry point `builtin` of the group
`clawarena.plugins`; the task loader imports every module of that group once, so
a third-party package adds services, tools or Python checks the same way.
"""

from clawarena import gateway, services  # noqa: F401  (services and the gateway's own tools register on import)
from clawarena.scoring import checks  # noqa: F401  (the built-in Python checks register on import)
