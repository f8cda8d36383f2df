"""PyInstaller runtime hook: pin the Qt binding, and accept `python -m app` command lines."""

import os
import sys

# qasync and pyqtgraph probe for Qt bindings; only PySide6 is in the bundle.
os.environ.setdefault("QT_API", "pyside6")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

# The window starts its probe/sweep workers (and tools start simulators) as
# [sys.executable, "-m", "app", COMMAND, ...], the way to run the CLI from a source tree. In the
# bundle sys.executable is the tpotbench program itself, which takes COMMAND directly, so drop
# the "-m app" that a Python interpreter would have consumed.
if sys.argv[1:3] == ["-m", "app"]:
    del sys.argv[1:3]
