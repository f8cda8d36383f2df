"""The measurement engine: endpoints, streaming requests, load, metrics and result files (no Qt)."""
