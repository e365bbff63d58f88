"""`clawarena view`: a local web app over run folders (trial list, three views per trial, the
evidence chain, benign against attacked). It reads the run store only; it never runs anything."""
