"""Coding-agent harnesses run as delegate agents, each turn inside an OS sandbox.

`base.py` holds the shared turn lifecycle; each harness module registers one agent kind:
`claude-code:MODEL`, `codex:MODEL`, `gemini-cli:MODEL`.
"""

from clawarena.agents.harness import claude_code, codex, gemini_cli  # noqa: F401  (registers the harness agent kinds)
