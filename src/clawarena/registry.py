"""A registry of named things (services, wires, agents, executors, check kinds, ...).

Names are unique: registering a name twice is an error, so a plugin cannot silently
replace a built-in. Lookups of unknown names say what is known.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    def __init__(self, what: str):
        self.what = what  # e.g. "executor", for messages
        self._items: dict[str, T] = {}

    def register(self, name: str, item: T) -> T:
        if name in self._items:
            raise ValueError(f"{self.what} {name!r} is registered twice")
        self._items[name] = item
        return item

    def decorator(self, name: str) -> Callable[[T], T]:
        """`@registry.decorator("name")` registers the decorated object under `name`."""
        return lambda item: self.register(name, item)

    def unregister(self, name: str) -> T:
        """Take a name back (a plugin or test that registered something for a while)."""
        return self._items.pop(name)

    def get(self, name: str) -> T:
        try:
            return self._items[name]
        except KeyError:
            raise KeyError(f"unknown {self.what} {name!r} (known: {', '.join(sorted(self._items)) or 'none'})") from None

    __getitem__ = get

    def names(self) -> list[str]:
        return sorted(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._items))

    def __len__(self) -> int:
        return len(self._items)
