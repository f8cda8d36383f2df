"""From request records to figures: vLLM's per-point metrics and the workload figures."""
