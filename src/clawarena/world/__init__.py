"""The world of one trial: SQLite store, clock, ids, principals, policies, ledger."""
