"""The window's panels, one subpackage per panel with its helpers."""
