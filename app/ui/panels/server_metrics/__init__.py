"""The Server metrics dock: the endpoint's /metrics, live."""
