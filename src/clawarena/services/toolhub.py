"""ToolHub: one BM25 index (the bm25s library) over every tool's metadata, and the scenario-aware
retrieval task synthesis uses: the tools a user of a service set needs for a request, plus
plausible distractors drawn from the same services by a seed.

bm25s (and numpy with it) is imported when a hub is first built, never at import, so the CLI's
start-up stays light. A hub is built once per process per catalogue (`hub()`)."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from clawarena.tools.core import Tool, ToolKind

if TYPE_CHECKING:
    import bm25s

KINDS = tuple(k.value for k in ToolKind)
# The fields of a tool that are indexed, in the order `matched` reports them.
FIELDS = ("name", "aliases", "service", "kind", "tags", "description", "parameters")
# BM25F-like: one bm25s index per group of fields, their scores summed with these weights, so a long
# parameter text neither dilutes a name's match (length normalisation) nor outweighs it.
GROUPS: dict[str, tuple[tuple[str, ...], float]] = {
    "name": (("name", "aliases"), 3.0),
    "description": (("description",), 1.0),
    "meta": (("service", "kind", "tags"), 0.5),
    "parameters": (("parameters",), 0.2),
}
# Words a user says for a service (added to its tools' tags) and for an API word in a tool name
# (its aliases, indexed with the name): calendar "insert" is what a user calls "create".
SERVICE_TAGS: dict[str, str] = {
    "gmail": "email mail inbox",
    "calendar": "event meeting schedule",
    "drive": "file folder storage",
    "docs": "document text",
    "slack": "chat channel message",
    "swe": "code repository",
    "clinical": "patient medical health",
    "trading": "stock portfolio",
    "travel": "trip",
    "market": "marketplace",
}
VERB_TAGS: dict[str, str] = {
    "insert": "create add new",
    "create": "add new",
    "delete": "remove",
    "trash": "delete remove",
    "update": "edit change",
    "patch": "edit change",
    "permissions": "share access",
    "acl": "share access permission",
}
# A tool scoring under this share of the weakest hit's score is "not relevant": distractors come from those.
RELEVANT_SHARE = 0.5
SCORE_DIGITS = 6  # scores are float32: rounded before ranking so ties are exact and broken by name

_WORD = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


class ToolHubError(ValueError):
    """Bad input to a query, naming the argument at fault (`services: unknown service 'fax'`)."""

    def __init__(self, argument: str, reason: str) -> None:
        super().__init__(f"{argument}: {reason}")
        self.argument, self.reason = argument, reason


def tool_catalogue() -> dict[str, list[Tool]]:
    """Every registered service's tools by service, sorted by name: what the hub indexes by default
    (`clawarena tools` adds the gateway's own tools to it)."""
    from clawarena.services.registry import services

    return {s.name: sorted(s.tools, key=lambda t: t.name) for s in services()}


# ---- text ---------------------------------------------------------------------------------------


def _fold(word: str) -> str:
    """Plural to singular, so "files" finds `file_id` and "emails" finds "email" (no stemmer in the deps)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if len(word) >= 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "as", "os")):
        return word[:-1]
    return word


def tokens(text: str, stopwords: frozenset[str]) -> list[str]:
    """Lower-case words of a text or an identifier (`drive_files_getStartPageToken`, `batchUpdate`)."""
    out = []
    for word in _WORD.findall(text):
        for part in _CAMEL.findall(word) or [word]:
            low = part.lower()
            if len(low) > 1 and low not in stopwords:
                out.append(_fold(low))
    return out


def tool_fields(tool: Tool, service: str) -> dict[str, str]:
    """The text of each indexed field of a tool."""
    props = tool.json_schema().get("properties", {})
    tags = [tool.action, *(tool.resource[1:] if tool.resource else ()), SERVICE_TAGS.get(service, "")]
    params = [f"{name} {prop.get('description', '')}" for name, prop in props.items()]
    return {
        "name": tool.name,
        "aliases": " ".join(VERB_TAGS[w] for w in tool.name.split("_") if w in VERB_TAGS),
        "service": service,
        "kind": tool.kind.value,
        "tags": " ".join(t for t in tags if t),
        "description": tool.description,
        "parameters": " ".join(params),
    }


# ---- results ------------------------------------------------------------------------------------


class ToolHit(BaseModel):
    """One retrieved tool: its BM25 score and, per field, the query terms that matched there."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    service: str
    kind: str
    score: float
    matched: dict[str, list[str]]
    description: str


class Retrieval(BaseModel):
    """What `ToolHub.retrieve` returns: the hits, best first, and the seeded distractors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    query: str
    terms: list[str]  # the query as indexed (lower case, no stop words, plurals folded)
    services: list[str]
    kinds: list[str]
    k: int
    seed: int
    hits: list[ToolHit]
    distractors: list[ToolHit]

    def tools(self) -> list[str]:
        """Hits then distractors, by name: the tool set a synthesized task's agent gets."""
        return [h.name for h in self.hits] + [d.name for d in self.distractors]


# ---- the index ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Entry:
    tool: Tool
    service: str
    fields: dict[str, set[str]]  # field -> its tokens, for `matched`


class ToolHub:
    """A BM25 index over a catalogue {service: tools}; queries are pure and deterministic."""

    def __init__(self, catalogue: Mapping[str, Sequence[Tool]]) -> None:
        import bm25s
        from bm25s.stopwords import STOPWORDS_EN

        self.stopwords = frozenset(STOPWORDS_EN)
        self.entries: list[_Entry] = []
        corpora: dict[str, list[list[str]]] = {g: [] for g in GROUPS}
        for service in sorted(catalogue):
            for tool in sorted(catalogue[service], key=lambda t: t.name):
                fields = {f: tokens(text, self.stopwords) for f, text in tool_fields(tool, service).items()}
                self.entries.append(_Entry(tool, service, {f: set(v) for f, v in fields.items()}))
                for group, (names, _) in GROUPS.items():
                    corpora[group].append([t for f in names for t in fields[f]])
        self.services = sorted(catalogue)
        self.indexes: dict[str, bm25s.BM25] = {}
        for group, corpus in corpora.items():
            self.indexes[group] = bm25s.BM25()
            self.indexes[group].index(corpus, show_progress=False)

    def __len__(self) -> int:
        return len(self.entries)

    # ---- validation ----

    def _services(self, services: Sequence[str] | None) -> list[str]:
        if services is None:
            return list(self.services)
        unknown = [s for s in services if s not in self.services]
        if unknown:
            raise ToolHubError("services", f"unknown service {unknown[0]!r}; services: {', '.join(self.services)}")
        if not services:
            raise ToolHubError("services", "empty; name at least one service or pass None for all")
        return sorted(set(services))

    @staticmethod
    def _kinds(kinds: Sequence[str | ToolKind] | None) -> list[str]:
        if kinds is None:
            return list(KINDS)
        values = [k.value if isinstance(k, ToolKind) else str(k).upper() for k in kinds]
        bad = [k for k in values if k not in KINDS]
        if bad:
            raise ToolHubError("kinds", f"unknown kind {bad[0]!r}; kinds: {', '.join(KINDS)}")
        if not values:
            raise ToolHubError("kinds", "empty; name at least one of READ, WRITE, SEND or pass None for all")
        return [k for k in KINDS if k in values]

    # ---- queries ----

    def scores(self, terms: list[str]) -> list[float]:
        """Every entry's score for the terms: the weighted sum of its fields' BM25 scores."""
        total = [0.0] * len(self.entries)
        for group, index in self.indexes.items():
            known = [t for t in terms if t in index.vocab_dict]
            if known:
                weight = GROUPS[group][1]
                total = [a + weight * float(b) for a, b in zip(total, index.get_scores(known))]
        return [round(s, SCORE_DIGITS) for s in total]

    def _hit(self, i: int, score: float, terms: list[str]) -> ToolHit:
        e = self.entries[i]
        matched = {f: sorted(set(terms) & e.fields[f]) for f in FIELDS}
        return ToolHit(
            name=e.tool.name, service=e.service, kind=e.tool.kind.value, score=score,
            matched={f: m for f, m in matched.items() if m}, description=e.tool.description,
        )  # fmt: skip

    def retrieve(
        self,
        query: str,
        services: Sequence[str] | None = None,
        kinds: Sequence[str | ToolKind] | None = None,
        k: int = 5,
        distractors: int = 0,
        seed: int = 0,
    ) -> Retrieval:
        """The `k` best tools of `services` (all when None) and `kinds` for `query`, best first, ties
        by name; only tools that match at least one term. Then `distractors` tools of the same
        services (of any kind), none a hit and none scoring `RELEVANT_SHARE` of the weakest hit or more,
        sampled by `seed` (same seed, same distractors)."""
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise ToolHubError("k", f"must be a whole number of at least 1, got {k!r}")
        if not isinstance(distractors, int) or isinstance(distractors, bool) or distractors < 0:
            raise ToolHubError("distractors", f"must be a whole number of at least 0, got {distractors!r}")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ToolHubError("seed", f"must be a whole number, got {seed!r}")
        chosen, wanted = self._services(services), self._kinds(kinds)
        if not query or not query.strip():
            raise ToolHubError("query", "empty; say what the tool should do")
        terms = list(dict.fromkeys(tokens(query, self.stopwords)))
        if not terms:
            raise ToolHubError("query", f"{query!r} has no word to search for (stop words and single letters are left out)")
        scores = self.scores(terms)
        pool = [i for i, e in enumerate(self.entries) if e.service in chosen and e.tool.kind.value in wanted]
        ranked = sorted((i for i in pool if scores[i] > 0), key=lambda i: (-scores[i], self.entries[i].tool.name))
        hits = ranked[:k]
        picked: list[int] = []
        if distractors:
            ceiling = scores[hits[-1]] * RELEVANT_SHARE if hits else float("inf")
            taken = set(hits)
            # any kind: a user of these services has their reads and writes too, whatever the query
            scenario = (i for i, e in enumerate(self.entries) if e.service in chosen)
            candidates = sorted((i for i in scenario if i not in taken and scores[i] < ceiling), key=lambda i: self.entries[i].tool.name)
            if len(candidates) < distractors:
                have = f"{', '.join(chosen)} {'has' if len(chosen) == 1 else 'have'} only {len(candidates)} tool(s) unrelated to the query"
                raise ToolHubError("distractors", f"asked for {distractors}, but {have}")
            picked = sorted(random.Random(f"toolhub:{seed}").sample(candidates, distractors), key=lambda i: self.entries[i].tool.name)
        return Retrieval(
            query=query, terms=terms, services=chosen, kinds=wanted, k=k, seed=seed,
            hits=[self._hit(i, scores[i], terms) for i in hits],
            distractors=[self._hit(i, scores[i], terms) for i in picked],
        )  # fmt: skip

    def search(self, query: str, services: Sequence[str] | None = None, kinds: Sequence[str | ToolKind] | None = None, k: int = 10) -> list[ToolHit]:
        """The hits of `retrieve` without distractors."""
        return self.retrieve(query, services=services, kinds=kinds, k=k).hits


# ---- one hub per process per catalogue -----------------------------------------------------------

_HUBS: dict[tuple[Any, ...], ToolHub] = {}


def _key(catalogue: Mapping[str, Sequence[Tool]]) -> tuple[Any, ...]:
    return tuple((s, tuple(id(t) for t in catalogue[s])) for s in sorted(catalogue))


def hub(catalogue: Mapping[str, Sequence[Tool]] | None = None) -> ToolHub:
    """The hub over `catalogue` (default: every registered service's tools), built on first use."""
    catalogue = tool_catalogue() if catalogue is None else catalogue
    key = _key(catalogue)
    if key not in _HUBS:
        _HUBS[key] = ToolHub(catalogue)
    return _HUBS[key]


def retrieve(query: str, services: Sequence[str] | None = None, kinds: Sequence[str | ToolKind] | None = None, k: int = 5, distractors: int = 0, seed: int = 0) -> Retrieval:
    """`ToolHub.retrieve` on the default hub: for task synthesis."""
    return hub().retrieve(query, services=services, kinds=kinds, k=k, distractors=distractors, seed=seed)
