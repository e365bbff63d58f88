"""The viewer's deep links: one URL per trial and per event, which the HTML report links to."""

from __future__ import annotations

from urllib.parse import quote

DEFAULT_PORT = 8765
DEFAULT_URL = f"http://127.0.0.1:{DEFAULT_PORT}"


def unique_label(run_id: str, taken: set[str]) -> str:
    """A run folder's label among several (its name; `name#2` for a second folder of that name),
    the same in the report and the viewer, so the report's links find the viewer's trial."""
    label, n = run_id, 1
    while label in taken:
        n += 1
        label = f"{run_id}#{n}"
    taken.add(label)
    return label


def trial_path(run: str, unit: str, event: str | None = None) -> str:
    path = f"/runs/{quote(run, safe='')}/trials/{quote(unit, safe='')}"
    return f"{path}/events/{quote(event, safe='')}" if event else path


def compare_path(run: str, unit: str) -> str:
    return f"/runs/{quote(run, safe='')}/compare/{quote(unit, safe='')}"


def trial_url(base: str, run: str, unit: str, event: str | None = None) -> str:
    return base.rstrip("/") + trial_path(run, unit, event)
