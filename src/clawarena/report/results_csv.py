"""results.csv: one row per metrics group (level, agent, condition, suite, domain, vector; its harness and model) with
value, low, high and n of every estimate, for spreadsheets and papers.

Numbers are written at full precision (repr of the float), so a reader gets exactly what the
metrics computed; an empty field is a number that does not exist (no trials, no interval).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from clawarena.scoring.metrics import Estimate, GroupMetrics

KEY_COLUMNS = ("level", "agent", "condition", "suite", "domain", "vector", "harness", "model")
COUNT_COLUMNS = ("trials", "errors", "scored")
SCALAR_COLUMNS = ("mean_score", "coverage", "attack_success", "f_attack", "tokens", "cost_usd")
ESTIMATE_PARTS = ("value", "low", "high", "n")


def estimate_metrics() -> list[str]:
    """Every Estimate field of GroupMetrics, in its declared order (a new metric gets its columns)."""
    return [name for name, info in GroupMetrics.model_fields.items() if info.annotation is Estimate]


def _field(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def header(groups: Sequence[GroupMetrics]) -> list[str]:
    ks = sorted({k for g in groups for k in g.pass_hat_k})
    metrics = [f"{m}_{part}" if part != "value" else m for m in estimate_metrics() for part in ESTIMATE_PARTS]
    return [*KEY_COLUMNS, *COUNT_COLUMNS, *metrics, *SCALAR_COLUMNS, *(f"pass_hat_{k}" for k in ks), *(f"pass_at_{k}" for k in ks)]


def render_csv(groups: Sequence[GroupMetrics]) -> str:
    ks = sorted({k for g in groups for k in g.pass_hat_k})
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header(groups))
    for g in groups:
        row: list[object] = [getattr(g, c) for c in (*KEY_COLUMNS, *COUNT_COLUMNS)]
        for metric in estimate_metrics():
            e: Estimate = getattr(g, metric)
            row += [getattr(e, part) for part in ESTIMATE_PARTS]
        row += [getattr(g, c) for c in SCALAR_COLUMNS]
        row += [g.pass_hat_k.get(k) for k in ks] + [g.pass_at_k.get(k) for k in ks]
        writer.writerow([_field(v) for v in row])
    return buf.getvalue()
