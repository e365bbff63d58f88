"""Task synthesis (issue 14): prototypes sampled over the risk taxonomy, compiled into task data,
and the quality gates every candidate must pass."""
