"""Result files: per-point JSON, sweep.csv, the per-request block, and reading them back."""
