"""Defenses: registered agent wrappers chosen by name in a trial's condition (docs/defenses.md)."""

from clawarena.agents.defenses import confirm, detector, policy_monitor, spotlight, tool_filter  # noqa: F401  (registers the built-in defenses)
from clawarena.agents.defenses.base import (
    DEFENSES,
    DefendedAgent,
    DefendedSession,
    Defense,
    DefenseError,
    DefenseSetup,
    DefenseStack,
    check_defense,
    needs_reference,
    parse_stack,
    register_defense,
)

__all__ = ["DEFENSES", "DefendedAgent", "DefendedSession", "Defense", "DefenseError", "DefenseSetup", "DefenseStack", "check_defense", "needs_reference",
           "parse_stack", "register_defense"]  # fmt: skip
