"""Charts the panels share; data parts (ring buffer, series) need no Qt."""
