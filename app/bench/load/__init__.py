"""Load: the arrival schedule and concurrency cap of a point, and the worker processes (or Ray
actors) that can share it."""
