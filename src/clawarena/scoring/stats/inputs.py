"""Argument checks shared by the statistics: each error names the argument and the bad element."""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Integral

import numpy as np


def finite_array(values: Sequence[float], name: str) -> np.ndarray:
    """`values` as a float array; a missing, non-numeric or non-finite element -> ValueError naming it."""
    out = np.empty(len(values), dtype=float)
    for i, v in enumerate(values):
        try:
            out[i] = float(v)
        except (TypeError, ValueError):
            raise ValueError(f"{name}[{i}] is {v!r}, not a number") from None
        if not math.isfinite(out[i]):
            raise ValueError(f"{name}[{i}] is {v!r}, not a finite number")
    return out


def same_length(**sequences: Sequence[object]) -> None:
    lengths = {name: len(seq) for name, seq in sequences.items()}
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{name} has {n}" for name, n in lengths.items())
        raise ValueError(f"length mismatch: {shown} elements")


def bootstrap_options(level: float, resamples: int, seed: int) -> None:
    if not isinstance(level, (int, float)) or isinstance(level, bool) or not 0 < level < 1:
        raise ValueError(f"level must be a number strictly between 0 and 1, got {level!r}")
    if not isinstance(resamples, Integral) or isinstance(resamples, bool) or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}")
    # None would draw fresh OS entropy: the interval would change from run to run
    if not isinstance(seed, Integral) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")


def positive_k(k: int) -> None:
    if not isinstance(k, Integral) or isinstance(k, bool) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")


def pass_count(outcomes: Sequence[bool], name: str) -> int:
    """The number of passes among one task's repeats; an element other than a bool -> ValueError."""
    passes = 0
    for i, outcome in enumerate(outcomes):
        if not isinstance(outcome, (bool, np.bool_)):
            raise ValueError(f"{name}[{i}] is {outcome!r}, not a bool (passed or not)")  # noqa: TRY004 (bad input is always a ValueError)
        passes += bool(outcome)
    return passes
