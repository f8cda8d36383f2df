"""What goes into the PyInstaller bundle and what is filtered out (used by tpotbench.spec)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Iterable
from fnmatch import fnmatch
from pathlib import Path, PurePath

APP_NAME = "tpotbench"

# Modules never wanted in the bundle: other Qt bindings (qasync/pyqtgraph probe for them), the
# insecure plain-file keyrings, 3D plots (need OpenGL), Tk, and the test/dev tools in the venv.
EXCLUDES = [
    "PyQt5",
    "PyQt6",
    "PySide2",
    "tkinter",
    "_tkinter",
    "keyrings.alt",
    "keyrings",
    "pyqtgraph.opengl",
    "pyqtgraph.examples",
    "pyqtgraph.jupyter",
    "OpenGL",
    "pytest",
    "_pytest",
    "pytestqt",
    # --ray is for the command line on a cluster (the optional `distributed` extra): ~285 MB
    # that the desktop bundle never uses.
    "ray",
    "IPython",
    "matplotlib",
    "yaml",  # uvicorn only needs it for YAML log configs
]

# Imported lazily (importlib, entry points, uvicorn's string-named loops/protocols), so the
# import graph alone would miss them.
HIDDEN_IMPORTS = [
    "PySide6.QtCore",
    "PySide6.QtGui",
    "PySide6.QtWidgets",
    "PySide6.QtSvg",
    "qasync",
    "pyqtgraph",
    "numpy",
    "httpx",
    "httptools",
    "uvloop",
    "starlette",
    "prometheus_client",
    "tokenizers",
    "platformdirs",
    "keyring",
    "keyring.backends.SecretService",
    "keyring.backends.chainer",
    "keyring.backends.fail",
    "keyring.backends.null",
]
# Packages whose submodules are all reached by name at run time (app's own are listed from the
# source tree by app_modules(), which also finds folders without an __init__.py).
SUBMODULE_PACKAGES = ["uvicorn", "keyring.backends"]
# Distribution metadata read at run time: our version (importlib.metadata), keyring's backends
# (entry points) and the versions the About dialog lists.
METADATA = ["tpotbench", "keyring"]

# Files the Qt/PySide6 hooks sweep in that this app never uses; each pattern has its reason.
# Patterns match the bundle-relative destination path (forward slashes). The host libraries
# only these needed (GTK, cairo, pango, wayland, ...) go too, via prune_orphans().
DROP_RULES: list[tuple[str, str]] = [
    ("*/plugins/platformthemes/libqgtk3*", "GTK platform theme (pulls in the host's GTK stack)"),
    ("*/plugins/platforms/libqwayland*", "Wayland: runs through XWayland (xcb) instead"),
    ("*/plugins/wayland-*", "Wayland plugin"),
    ("*libQt6Wayland*", "Wayland Qt module"),
    ("*libQt6WlShellIntegration*", "Wayland Qt module"),
    ("*/plugins/platforms/libqeglfs*", "EGLFS (embedded full-screen) platform"),
    ("*/plugins/platforms/libqminimalegl*", "EGL platform"),
    ("*/plugins/egldeviceintegrations/*", "EGLFS device plugins"),
    ("*libQt6Egl[Ff][Ss]*", "EGLFS Qt module"),
    ("*/plugins/platforms/libqvnc*", "VNC platform"),
    ("*libQt6Vnc*", "VNC Qt module"),
    ("*/plugins/platforms/libqlinuxfb*", "Linux framebuffer platform"),
    ("*/plugins/platforms/libqvkkhrdisplay*", "Vulkan display platform"),
]
# Qt's own translations: keep only the languages the app ships.
KEEP_QT_LANGUAGES = ("zh_CN",)


def drop_reason(dest: str) -> str | None:
    """Why a collected file should be left out of the bundle, or None to keep it."""
    path = PurePath(dest.replace("\\", "/")).as_posix()
    name = path.rsplit("/", 1)[-1]
    for pattern, reason in DROP_RULES:
        if fnmatch(path, pattern) or ("/" not in pattern and fnmatch(name, pattern)):
            return reason
    is_qt_translation = "/Qt/translations/" in f"/{path}" and name.endswith(".qm")
    if is_qt_translation and not any(f"_{lang}." in name for lang in KEEP_QT_LANGUAGES):
        return "Qt translation for a language the app does not ship"
    return None


def filter_toc(toc: list, log: dict[str, int] | None = None) -> tuple[list, list]:
    """Split TOC entries (dest, source, kind) into (kept, dropped); counts drops per reason."""
    kept, dropped = [], []
    for entry in toc:
        reason = drop_reason(entry[0])
        if reason is None:
            kept.append(entry)
        else:
            dropped.append(entry)
            if log is not None:
                log[reason] = log.get(reason, 0) + 1
    return kept, dropped


def prune_orphans(
    kept: list, dropped: list, needed: Callable[[str], Iterable[str]]
) -> tuple[list, list[str]]:
    """Drop top-level libraries that only the dropped files needed (e.g. GTK for libqgtk3).

    Top-level entries (no folder in their bundle path) are the host libraries PyInstaller
    gathered as dependencies; one is removed only if a dropped file needs it and no kept file
    does, so libraries loaded by name at run time (ctypes) are never touched.
    `needed(source_path)` lists the library file names a binary links against.
    """

    def is_top(entry: tuple) -> bool:
        return "/" not in entry[0].replace("\\", "/")

    sources = {entry[0]: entry[1] for entry in kept if is_top(entry)}

    def closure(starts: Iterable[str]) -> set[str]:
        seen: set[str] = set()
        todo = list(starts)
        while todo:
            for name in needed(todo.pop()):
                if name not in seen:
                    seen.add(name)
                    if name in sources:
                        todo.append(sources[name])
        return seen

    roots = [e[1] for e in kept if not is_top(e) or e[0].startswith("libpython")]
    used = closure(roots)
    wanted_by_dropped = closure(e[1] for e in dropped)
    orphans = sorted(n for n in sources if n in wanted_by_dropped and n not in used)
    return [e for e in kept if not (is_top(e) and e[0] in orphans)], orphans


def _top(dest: str) -> str:
    """The first component of a bundle path (the file name itself for top-level files)."""
    return dest.replace("\\", "/").split("/", 1)[0]


def strip_skipped(dest: str, vendored: set[str]) -> bool:
    """True for files `strip` must not touch: wheels repaired by auditwheel (a `<pkg>.libs`
    folder) were rewritten by patchelf, and stripping them gives "ELF load command
    address/offset not page-aligned" at import."""
    return _top(dest).removesuffix(".libs") in vendored


def strip_binaries(binaries: list, cache: Path) -> tuple[list, int]:
    """Point ELF entries at stripped copies under cache (reused while newer than the source).

    Returns the new TOC and the bytes saved. Linux only; the caller decides when to use it.
    """
    vendored = {_top(e[0]).removesuffix(".libs") for e in binaries if _top(e[0]).endswith(".libs")}
    out, saved = [], 0
    for dest, src, kind in binaries:
        source = Path(src)
        with source.open("rb") as f:
            is_elf = f.read(4) == b"\x7fELF"
        if not is_elf or strip_skipped(dest, vendored):
            out.append((dest, src, kind))
            continue
        copy = cache / dest
        if not copy.exists() or copy.stat().st_mtime < source.stat().st_mtime:
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, copy)
            result = subprocess.run(["strip", str(copy)], capture_output=True, check=False)
            if result.returncode != 0:
                copy.unlink()
                out.append((dest, src, kind))
                continue
        saved += source.stat().st_size - copy.stat().st_size
        out.append((dest, str(copy), kind))
    return out, saved


def app_modules(root: Path) -> list[str]:
    """Every module under app/ (commands and the window are imported by name, lazily)."""
    names = []
    for path in sorted((root / "app").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if "__pycache__" in parts:
            continue
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def resource_datas(root: Path) -> list[tuple[str, str]]:
    """(source, bundle folder) pairs for everything under resources/ the app reads at run time."""
    pairs = []
    base = root / "resources"
    for path in sorted(base.rglob("*")):
        skipped = path.suffix in {".ts", ".pyc", ".sh"} or "__pycache__" in path.parts
        if not path.is_file() or skipped:
            continue  # .ts and update.sh make the .qm the app loads
        pairs.append((str(path), str(Path("resources") / path.parent.relative_to(base))))
    return pairs
