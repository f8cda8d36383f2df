"""The Roofline dock: measured TPOT against the bandwidth floor."""
