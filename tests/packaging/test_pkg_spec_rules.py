"""The PyInstaller spec, its inclusion/exclusion rules, build.py's checks and smoke.sh's CLI."""

import _ctypes
import os
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import COMMANDS

import build
import bundle_rules as rules

ROOT = Path(__file__).resolve().parents[2]


def test_spec_is_valid_python_using_the_rules() -> None:
    source = (ROOT / "packaging" / "tpotbench.spec").read_text(encoding="utf-8")
    compile(source, "tpotbench.spec", "exec")
    for needed in ("bundle_rules.EXCLUDES", "filter_toc", "prune_orphans", "copy_metadata"):
        assert needed in source


def test_required_exclusions() -> None:
    for name in ("PyQt5", "PyQt6", "PySide2", "tkinter", "keyrings.alt", "pyqtgraph.opengl", "ray"):
        assert name in rules.EXCLUDES
    assert "tpotbench" in rules.METADATA and "keyring" in rules.METADATA


def test_every_command_and_the_window_are_bundled() -> None:
    modules = rules.app_modules(ROOT)
    for name in COMMANDS:
        assert f"app.commands.{name}" in modules
    assert "app.ui.launch" in modules and "app.paths" in modules
    assert not any("__pycache__" in m or m.endswith("__init__") for m in modules)


@pytest.mark.parametrize(
    ("dest", "dropped"),
    [
        ("PySide6/Qt/plugins/platformthemes/libqgtk3.so", True),
        ("PySide6/Qt/plugins/platforms/libqwayland-egl.so", True),
        ("PySide6/Qt/plugins/wayland-shell-integration/libxdg-shell.so", True),
        ("PySide6/Qt/lib/libQt6WaylandClient.so.6", True),
        ("PySide6/Qt/lib/libQt6EglFsKmsSupport.so.6", True),
        ("PySide6/Qt/lib/libQt6EglFSDeviceIntegration.so.6", True),
        ("PySide6/Qt/plugins/platforms/libqeglfs.so", True),
        ("PySide6/Qt/plugins/platforms/libqvnc.so", True),
        ("PySide6/Qt/translations/qtbase_de.qm", True),
        ("PySide6/Qt/translations/qtbase_zh_CN.qm", False),
        ("PySide6/Qt/plugins/platforms/libqxcb.so", False),
        ("PySide6/Qt/plugins/platforms/libqoffscreen.so", False),
        ("PySide6/Qt/plugins/platformthemes/libqxdgdesktopportal.so", False),
        ("PySide6/Qt/lib/libQt6Gui.so.6", False),
        ("PySide6\\Qt\\plugins\\platforms\\qwindows.dll", False),
        ("libxcb-cursor.so.0", False),
        ("resources/i18n/tpotbench_zh_CN.qm", False),
    ],
)
def test_drop_rules(dest: str, dropped: bool) -> None:
    assert (rules.drop_reason(dest) is not None) == dropped


def test_filter_and_prune_remove_only_what_the_dropped_plugin_needed() -> None:
    toc = [
        ("PySide6/Qt/plugins/platformthemes/libqgtk3.so", "/src/libqgtk3.so", "BINARY"),
        ("PySide6/Qt/plugins/platforms/libqxcb.so", "/src/libqxcb.so", "BINARY"),
        ("libgtk-3.so.0", "/host/libgtk-3.so.0", "BINARY"),
        ("libcairo.so.2", "/host/libcairo.so.2", "BINARY"),
        ("libX11.so.6", "/host/libX11.so.6", "BINARY"),
        ("libpython3.11.so.1.0", "/host/libpython3.11.so.1.0", "BINARY"),
        ("libffi.so.8", "/host/libffi.so.8", "BINARY"),  # loaded by name (ctypes): no edges
    ]
    links = {
        "/src/libqgtk3.so": ["libgtk-3.so.0", "libX11.so.6"],
        "/host/libgtk-3.so.0": ["libcairo.so.2"],
        "/src/libqxcb.so": ["libX11.so.6"],
    }
    reasons: dict[str, int] = {}
    kept, dropped = rules.filter_toc(toc, reasons)
    assert [e[0] for e in dropped] == ["PySide6/Qt/plugins/platformthemes/libqgtk3.so"]
    assert sum(reasons.values()) == 1
    kept, orphans = rules.prune_orphans(kept, dropped, lambda src: links.get(src, []))
    assert orphans == ["libcairo.so.2", "libgtk-3.so.0"]
    assert [e[0] for e in kept] == [
        "PySide6/Qt/plugins/platforms/libqxcb.so",
        "libX11.so.6",
        "libpython3.11.so.1.0",
        "libffi.so.8",
    ]


def test_strip_skips_auditwheel_libraries() -> None:
    vendored = {"numpy"}
    assert rules.strip_skipped("numpy.libs/libscipy_openblas64_.so", vendored)
    assert rules.strip_skipped("numpy/_core/_multiarray_umath.so", vendored)
    assert not rules.strip_skipped("uvloop/loop.so", vendored)
    assert not rules.strip_skipped("libpython3.11.so.1.0", vendored)


def test_strip_binaries_uses_stripped_copies(tmp_path: Path) -> None:
    if sys.platform != "linux" or shutil.which("strip") is None:
        pytest.skip("stripping is done on Linux with binutils' strip only")
    elf = Path(_ctypes.__file__)  # any real ELF file will do
    text = tmp_path / "notes.txt"
    text.write_text("not a binary")
    toc = [("lib-dynload/_ctypes.so", str(elf), "EXTENSION"), ("notes.txt", str(text), "DATA")]
    out, saved = rules.strip_binaries(toc, tmp_path / "cache")
    assert out[1] == toc[1]
    assert out[0][0] == "lib-dynload/_ctypes.so"
    assert Path(out[0][1]) == tmp_path / "cache" / "lib-dynload" / "_ctypes.so"
    assert Path(out[0][1]).stat().st_size == elf.stat().st_size - saved
    assert elf.read_bytes()[:4] == Path(out[0][1]).read_bytes()[:4] == b"\x7fELF"


def test_resource_datas_skip_translation_sources(tmp_path: Path) -> None:
    (tmp_path / "resources" / "i18n").mkdir(parents=True)
    (tmp_path / "resources" / "i18n" / "tpotbench_zh_CN.ts").write_text("<TS/>")
    (tmp_path / "resources" / "i18n" / "tpotbench_zh_CN.qm").write_bytes(b"qm")
    (tmp_path / "resources" / "catalog.json").write_text("{}")
    pairs = rules.resource_datas(tmp_path)
    assert [(Path(src).name, dest) for src, dest in pairs] == [
        ("catalog.json", "resources"),
        ("tpotbench_zh_CN.qm", str(Path("resources") / "i18n")),
    ]


def test_build_checks_the_bundle_version(tmp_path: Path) -> None:
    version = build.project_version()
    good = tmp_path / "good"
    good.write_text(f'#!/bin/sh\necho "tpotbench {version}"\n')
    bad = tmp_path / "bad"
    bad.write_text('#!/bin/sh\necho "tpotbench 0.0.0+source"\n')
    for exe in (good, bad):
        exe.chmod(0o755)
    assert build.check_version(good) is None
    problem = build.check_version(bad)
    assert problem is not None and "0.0.0+source" in problem and version in problem
    assert "could not run" in (build.check_version(tmp_path / "missing") or "")


def test_folder_size_counts_files_not_links(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"x" * 1000)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b").write_bytes(b"y" * 24)
    (tmp_path / "link").symlink_to(tmp_path / "a")
    assert build.folder_size(tmp_path) == (1024, 2)


def test_smoke_script_parses_and_rejects_unknown_options() -> None:
    script = ROOT / "packaging" / "smoke.sh"
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0
    helped = subprocess.run(["bash", str(script), "--help"], capture_output=True, text=True)
    assert helped.returncode == 0 and "--no-build" in helped.stdout
    bad = subprocess.run(["bash", str(script), "--fast"], capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown option '--fast'" in bad.stderr


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["tpotbench", "-m", "app", "probe", "--json"], ["tpotbench", "probe", "--json"]),
        (["tpotbench", "sweep", "-m", "app"], ["tpotbench", "sweep", "-m", "app"]),
        (["tpotbench"], ["tpotbench"]),
        (["tpotbench", "-m", "other"], ["tpotbench", "-m", "other"]),
    ],
)
def test_runtime_hook_accepts_python_dash_m_command_lines(
    monkeypatch: pytest.MonkeyPatch, argv: list[str], expected: list[str]
) -> None:
    monkeypatch.setattr(sys, "argv", list(argv))
    for name in ("QT_API", "PYQTGRAPH_QT_LIB"):
        monkeypatch.setenv(name, "recorded")  # so monkeypatch restores the original afterwards
        monkeypatch.delenv(name)
    runpy.run_path(str(ROOT / "packaging" / "rthook_tpotbench.py"))
    assert sys.argv == expected
    assert (os.environ["QT_API"], os.environ["PYQTGRAPH_QT_LIB"]) == ("pyside6", "PySide6")
