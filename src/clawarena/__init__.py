"""clawarena: an auditable sandbox and benchmark for personal LLM agents."""

__version__ = "0.1.0"
