"""The `clawarena` command groups: one module per group, thin over the packages below."""
