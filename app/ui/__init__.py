"""The PySide6 window: it only shows and drives the Qt-free engine."""
