"""TPOT Bench's own HTTP/1.1 transport for the measured requests (see transport.py)."""
