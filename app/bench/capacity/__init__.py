"""Capacity under latency goals: SLOs, the search for the highest load that meets them,
repeated runs, the knee of a curve and why the limit is where it is."""
