"""Scoring: the check library, utility, harm per surface and attribution to attack material."""

from clawarena.scoring.score import TrialScore, Violation, score_trial

__all__ = ["TrialScore", "Violation", "score_trial"]
