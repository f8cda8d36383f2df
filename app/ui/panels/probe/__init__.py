"""The Probe tab: one streaming request, watched live."""
