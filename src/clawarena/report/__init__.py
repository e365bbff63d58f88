"""The run report: metrics with their intervals as a self-contained HTML page, Markdown and CSV."""
