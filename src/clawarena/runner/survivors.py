"""Accepted survivors: the mutants a suite's checks knowingly let through, each with a reason.

A suite's doc (docs/suites/<suite>.md) ends with a section

    ## Accepted survivors

    | scenario | kind | mutant | reason |
    |---|---|---|---|
    | gmail-stale-drafts/benign | extra-read | repeated olusegun-agent call 1 (gmail_drafts_list) at the end | why it may pass |

where `mutant` is the exact `what` of the mutant (`clawarena check --mutants` prints it; a cell
may wrap it in backticks, and writes a `|` in it as `\\|`). The mutation gate fails on a survivor
or false alarm that is not listed; a listed one that no longer survives is stale (a warning).
The parser is strict: every problem names the file and line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from clawarena.runner.mutants import MutantResult
from clawarena.spec.loader import BUNDLED_SUITES

SECTION = "Accepted survivors"
COLUMNS = ("scenario", "kind", "mutant", "reason")
EMPTY_SECTION = f"## {SECTION}\n\n| {' | '.join(COLUMNS)} |\n|{'---|' * len(COLUMNS)}\n"

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_RULE = re.compile(r"^:?-{3,}:?$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")

DOCS_SUITES = Path(__file__).resolve().parents[3] / "docs" / "suites"  # in a source checkout


class SurvivorsFileError(ValueError):
    """The survivors file is missing, or its section does not parse; one problem per line."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class AcceptedSurvivor:
    scenario: str
    kind: str
    mutant: str
    reason: str
    line: int  # in the file, 1-based

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.scenario, self.kind, self.mutant)


def _cells(line: str) -> list[str] | None:
    """A table row's cells (unescaped, stripped, one pair of backticks taken off), or None when the
    line does not start and end with `|`."""
    text = line.strip()
    if len(text) < 2 or not text.startswith("|") or not text.endswith("|") or text.endswith("\\|"):
        return None
    out = []
    for raw in _CELL_SPLIT.split(text[1:-1]):
        cell = raw.strip().replace("\\|", "|")
        if len(cell) >= 2 and cell.startswith("`") and cell.endswith("`") and "`" not in cell[1:-1]:
            cell = cell[1:-1]
        out.append(cell)
    return out


def parse_survivors(text: str, source: str, kinds: Iterable[str] | None = None) -> list[AcceptedSurvivor]:
    """The rows of the `## Accepted survivors` table of a markdown text; `source` names the file in
    errors, `kinds` (when given) are the mutant kinds a row may name."""
    known = sorted(kinds) if kinds is not None else None
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if (m := _HEADING.match(line)) and len(m.group(1)) == 2 and m.group(2).strip().lower() == SECTION.lower()]
    if not starts:
        raise SurvivorsFileError([f"{source}: no '## {SECTION}' section; add one with the table header | {' | '.join(COLUMNS)} |"])
    if len(starts) > 1:
        raise SurvivorsFileError([f"{source}:{starts[1] + 1}: a second '## {SECTION}' section (the first is on line {starts[0] + 1})"])
    problems: list[str] = []
    rows: list[AcceptedSurvivor] = []
    seen: dict[tuple[str, str, str], int] = {}
    state = "before"  # before the table, header seen, in the rows, after the table
    for i in range(starts[0] + 1, len(lines)):
        line, where = lines[i], f"{source}:{i + 1}"
        heading = _HEADING.match(line)
        if heading and len(heading.group(1)) <= 2:
            break  # the next section
        if not line.strip().startswith("|"):  # prose or a blank line: ends the table
            if state == "header":
                problems.append(f"{where}: the header row must be followed by the separator row |---|---|---|---|")
            state = "after" if state != "before" else state
            continue
        cells = _cells(line)
        if cells is None:
            problems.append(f"{where}: a table row must start and end with '|' (write a '|' inside a cell as '\\|')")
            continue
        if state == "after":
            problems.append(f"{where}: a second table in the '{SECTION}' section; keep one table")
            continue
        if state == "before":
            if [c.lower() for c in cells] != list(COLUMNS):
                problems.append(f"{where}: the table header must be | {' | '.join(COLUMNS)} |, got | {' | '.join(cells)} |")
            state = "header"
            continue
        if state == "header":
            if len(cells) != len(COLUMNS) or not all(_RULE.match(c) for c in cells):
                problems.append(f"{where}: the header row must be followed by the separator row |---|---|---|---|")
            state = "rows"
            continue
        if len(cells) != len(COLUMNS):
            problems.append(f"{where}: expected {len(COLUMNS)} cells ({', '.join(COLUMNS)}), got {len(cells)} (write a '|' inside a cell as '\\|')")
            continue
        empty = [name for name, cell in zip(COLUMNS, cells) if not cell]
        if empty:
            problems.append(f"{where}: empty {' and '.join(empty)}" + (" (every accepted survivor needs a reason)" if "reason" in empty else ""))
            continue
        survivor = AcceptedSurvivor(*cells, line=i + 1)
        if known is not None and survivor.kind not in known:
            problems.append(f"{where}: unknown mutant kind {survivor.kind!r} (known: {', '.join(known)})")
            continue
        if survivor.key in seen:
            problems.append(f"{where}: this mutant is already listed on line {seen[survivor.key]}")
            continue
        seen[survivor.key] = i + 1
        rows.append(survivor)
    if state == "before" and not problems:
        problems.append(f"{source}:{starts[0] + 1}: the '{SECTION}' section has no table; add the header | {' | '.join(COLUMNS)} |")
    if problems:
        raise SurvivorsFileError(problems)
    return rows


def load_survivors(path: Path, kinds: Iterable[str] | None = None) -> list[AcceptedSurvivor]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SurvivorsFileError([f"{path}: no such survivors file"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SurvivorsFileError([f"{path}: cannot read the survivors file: {exc}"]) from None
    return parse_survivors(text, str(path), kinds)


def default_survivors_file(suite: str) -> Path | None:
    """docs/suites/<suite>.md for a bundled suite's name in a source checkout (where the docs are); else None."""
    if Path(suite).is_dir() or not (BUNDLED_SUITES / suite).is_dir():
        return None
    path = DOCS_SUITES / f"{suite}.md"
    return path if path.is_file() else None


def survivor_row(result: MutantResult, reason: str = "") -> str:
    """The table row that accepts `result`'s mutant (with `reason` to fill in)."""
    m = result.mutant

    def cell(text: str) -> str:
        text = text.replace("|", "\\|")
        return f"`{text}`" if text and "`" not in text else text

    return f"| {cell(m.scenario_id)} | {m.kind} | {cell(m.what)} | {reason} |"


@dataclass
class SurvivorReview:
    """This run's survivors and false alarms against the accepted list."""

    accepted: list[tuple[MutantResult, AcceptedSurvivor]] = field(default_factory=list)
    unexplained: list[MutantResult] = field(default_factory=list)  # neither killed nor listed
    stale: list[tuple[AcceptedSurvivor, str]] = field(default_factory=list)  # listed, and why it no longer applies


def review(results: list[MutantResult], accepted: list[AcceptedSurvivor]) -> SurvivorReview:
    by_key = {a.key: a for a in accepted}
    ran = {(r.mutant.scenario_id, r.mutant.kind, r.mutant.what): r for r in results}
    out = SurvivorReview()
    for r in results:
        if not (r.survived or r.false_alarm):
            continue
        listed = by_key.get((r.mutant.scenario_id, r.mutant.kind, r.mutant.what))
        if listed is None:
            out.unexplained.append(r)
        else:
            out.accepted.append((r, listed))
    for a in accepted:
        r = ran.get(a.key)
        if r is None:
            out.stale.append((a, "was not generated in this run"))
        elif not (r.survived or r.false_alarm):
            out.stale.append((a, "is killed now" if r.mutant.expect == "should_fail" else "passes now"))
    return out
