"""The Endpoints dock: profiles, keys and /v1/models lookup."""
