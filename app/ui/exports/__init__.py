"""Exports: result tables and chart files written from the window."""
