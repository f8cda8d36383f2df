"""Roofline arithmetic: GPU and model catalogue, bytes per decode step, floors, MBU, KV capacity."""
