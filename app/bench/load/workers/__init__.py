"""Load workers: one point's requests spread over several processes or Ray actors, merged into
the same records, result files and live events as a single-process run."""
