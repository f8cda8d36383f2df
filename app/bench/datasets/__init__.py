"""Benchmark prompts: where the requests of a point come from."""
