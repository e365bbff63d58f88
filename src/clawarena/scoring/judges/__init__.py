"""Judges: an audit layer beside the deterministic harm detector. A judge model reads one trial's
evidence packet per harm surface and returns a strict JSON verdict; agreement and judged rates
are computed over the verdicts of several judges. Judges never change utility."""

from clawarena.scoring.judges.agreement import DETERMINISTIC, PairAgreement, agreement, judged_attack_success, judged_harm
from clawarena.scoring.judges.judge import PROVIDER_ERROR, Judge, JudgeResult
from clawarena.scoring.judges.prompt import PROMPT_VERSION, JudgePrompt, build_prompt
from clawarena.scoring.judges.verdict import JudgeVerdict, Judgment

__all__ = [
    "DETERMINISTIC", "PROMPT_VERSION", "PROVIDER_ERROR", "Judge", "JudgePrompt", "JudgeResult", "JudgeVerdict", "Judgment", "PairAgreement",
    "agreement", "build_prompt", "judged_attack_success", "judged_harm",
]  # fmt: skip
