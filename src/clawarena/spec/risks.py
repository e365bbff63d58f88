"""The risk taxonomy: SeClaw's four top categories and their leaf risk targets, as data.

The leaves are the targets O of coverage C (a synthesized task names one as its risk target).
They live in `risks.yaml` next to this module, read through importlib.resources so the same code
works from an editable install and from a wheel, parsed with the task reader (duplicate keys,
bad YAML and unknown fields are errors naming the file and field path) and checked once.
"""

from __future__ import annotations

import difflib
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Literal, get_args

from pydantic import Field, ValidationError, field_validator, model_validator

from clawarena.spec.base import Strict
from clawarena.spec.errors import SpecError, pydantic_problems, render
from clawarena.spec.taxonomy import Surface
from clawarena.spec.yamlread import read_yaml_mapping

DATA_FILE = "risks.yaml"

# Where the unsafe content or pressure enters the episode.
RiskSource = Literal["user", "environment_data", "peer_agent", "tool_output", "external_actor"]
RISK_SOURCES: tuple[str, ...] = get_args(RiskSource)

CategoryId = Literal["resource", "task", "environment", "intrinsic"]
CATEGORY_IDS: tuple[str, ...] = get_args(CategoryId)

# `category.leaf-name`: lower-case words joined by hyphens, one dot. Stable: never renamed.
LEAF_ID_PATTERN = r"^[a-z]+\.[a-z0-9]+(-[a-z0-9]+)*$"
_ONE_LINE = r"^[^\n]+$"


class RiskLeaf(Strict):
    """A leaf risk target: what can go wrong, the surface it is scored under, who can carry it."""

    id: str = Field(pattern=LEAF_ID_PATTERN)
    name: str = Field(min_length=1, pattern=_ONE_LINE)
    definition: str = Field(min_length=1, pattern=_ONE_LINE)
    surface: Surface
    sources: tuple[RiskSource, ...] = Field(min_length=1)
    origin: Literal["issue", "seclaw"]

    @field_validator("sources")
    @classmethod
    def _distinct_sources(cls, sources: tuple[str, ...]) -> tuple[str, ...]:
        repeated = sorted({s for s in sources if sources.count(s) > 1})
        if repeated:
            raise ValueError(f"risk source listed twice: {', '.join(repeated)}")
        return sources

    @property
    def category(self) -> str:
        return self.id.split(".", 1)[0]


class RiskCategory(Strict):
    id: CategoryId
    name: str = Field(min_length=1, pattern=_ONE_LINE)
    definition: str = Field(min_length=1, pattern=_ONE_LINE)
    leaves: tuple[RiskLeaf, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _leaves_are_under_this_category(self) -> RiskCategory:
        stray = [leaf.id for leaf in self.leaves if leaf.category != self.id]
        if stray:
            raise ValueError(f"leaf ids must start with {self.id + '.'!r}: {', '.join(stray)}")
        return self


class UnknownRisk(ValueError):
    """A risk id that is not a leaf of the taxonomy (a ValueError, so a model field names it)."""


class Taxonomy(Strict):
    version: Literal[1]
    categories: tuple[RiskCategory, ...]

    @model_validator(mode="after")
    def _ids_are_unique_and_complete(self) -> Taxonomy:
        cats = [c.id for c in self.categories]
        if sorted(cats) != sorted(CATEGORY_IDS):
            raise ValueError(f"categories must be exactly {', '.join(CATEGORY_IDS)} once each, found {', '.join(cats) or 'none'}")
        ids = [leaf.id for c in self.categories for leaf in c.leaves]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"leaf id used twice: {', '.join(repeated)}")
        return self

    def leaves(self) -> tuple[RiskLeaf, ...]:
        return tuple(leaf for c in self.categories for leaf in c.leaves)

    def ids(self) -> tuple[str, ...]:
        return tuple(leaf.id for leaf in self.leaves())

    def leaf(self, risk_id: str) -> RiskLeaf:
        """The leaf `risk_id`; UnknownRisk names the nearest ids when there is none."""
        for leaf in self.leaves():
            if leaf.id == risk_id:
                return leaf
        raise UnknownRisk(unknown_message(risk_id, self.ids()))


def unknown_message(risk_id: object, ids: tuple[str, ...]) -> str:
    text = str(risk_id)
    near = difflib.get_close_matches(text, ids, n=3, cutoff=0.6)
    # A bare leaf name (`data-leakage`) is the likeliest slip: match it against the part after the dot.
    near += [i for i in ids if i.split(".", 1)[1] == text and i not in near]
    hint = f"did you mean {', '.join(near)}?" if near else "see `clawarena synth taxonomy` for the ids"
    return f"unknown risk target {text!r}: {hint}"


def load_taxonomy(path: Path | str) -> Taxonomy:
    """Read and check a taxonomy file; SpecError lists each problem as `file: field.path: what`."""
    path = Path(path)
    parsed = read_yaml_mapping(path, "taxonomy file")
    try:
        return Taxonomy.model_validate(parsed.data)
    except ValidationError as exc:
        raise SpecError(render(path, pydantic_problems(exc, parsed.data), parsed.lines)) from None


@lru_cache(maxsize=1)
def taxonomy() -> Taxonomy:
    """The bundled taxonomy, read and checked once per process."""
    with resources.as_file(resources.files("clawarena.spec") / DATA_FILE) as path:
        return load_taxonomy(path)


def risk(risk_id: str) -> RiskLeaf:
    """A leaf of the bundled taxonomy by id (UnknownRisk, naming near ids, when there is none)."""
    return taxonomy().leaf(risk_id)
