"""The Sweep tab: set up a sweep, run it in a worker, watch it live."""
