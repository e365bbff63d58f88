"""slack service (being built; registers itself on import once complete)."""
