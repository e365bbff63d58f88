"""The runner: episodes, work units, the run store, executors and resume."""
