"""The app icon (SVG + committed hicolor PNGs, .ico/.icns) and the Linux desktop entry."""

import configparser
import shutil
import subprocess
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage

import icons

ROOT = Path(__file__).resolve().parents[2]
DESKTOP = ROOT / "packaging" / "linux" / f"{icons.APP_ID}.desktop"


def test_every_hicolor_png_is_committed_at_its_size() -> None:
    assert icons.HICOLOR_SIZES == (16, 22, 24, 32, 48, 64, 128, 256, 512)
    for size in icons.HICOLOR_SIZES:
        path = (
            ROOT
            / f"resources/icons/app/hicolor/{size}x{size}/apps/io.github.tpotbench.TPOTBench.png"
        )
        image = QImage(str(path))
        assert (image.width(), image.height()) == (size, size), path
        assert image.hasAlphaChannel()


def test_512_png_shows_the_glyph() -> None:
    # Coordinates are the SVG's (viewBox 256) doubled: rect 16..240, roof at y=96 from x=120,
    # dot centred at (168, 168). Colours are the SVG's fills.
    image = QImage(str(icons.hicolor_png(512)))
    assert image.pixelColor(4, 4).alpha() == 0  # outside the rounded square
    assert image.pixelColor(256, 60) == QColor("#1d4f7c")  # background, clear of the shapes
    assert image.pixelColor(320, 192) == QColor("#ffffff")  # the flat roof
    assert image.pixelColor(336, 336) == QColor("#f6a623")  # the measured point


def test_committed_pngs_match_the_svg(tmp_path: Path) -> None:
    # Catches an SVG edit without rerunning `python packaging/icons.py`.
    fresh = icons.write_hicolor(root=tmp_path)
    for path in fresh:
        committed = QImage(str(ROOT / "resources/icons/app/hicolor" / path.relative_to(tmp_path)))
        new = QImage(str(path))
        worst = max(
            abs(a - b)
            for y in range(new.height())
            for x in range(new.width())
            for a, b in zip(
                committed.pixelColor(x, y).getRgb(), new.pixelColor(x, y).getRgb(), strict=True
            )
        )
        assert worst <= 8, f"{path.name}: rerun python packaging/icons.py"


def test_platform_icons_are_written_in_their_formats(tmp_path: Path) -> None:
    ico = icons.platform_icon("win32", tmp_path)
    icns = icons.platform_icon("darwin", tmp_path)
    assert ico is not None and ico.read_bytes()[:4] == b"\x00\x00\x01\x00"  # ICONDIR, type 1
    assert icns is not None and icns.read_bytes()[:4] == b"icns"
    assert icons.platform_icon("linux", tmp_path) is None


@pytest.mark.qt_log_ignore(r"Cannot read file '.*broken\.svg'")  # Qt's own word on the bad file
def test_bad_svg_is_reported(tmp_path: Path) -> None:
    broken = tmp_path / "broken.svg"
    broken.write_text("<svg")
    with pytest.raises(ValueError, match="not a valid SVG"):
        icons.render(16, broken)


def _entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # keys are case-sensitive in desktop files
    parser.read(DESKTOP, encoding="utf-8")
    return parser["Desktop Entry"]


def test_desktop_entry_names_the_app_in_english_and_chinese() -> None:
    entry = _entry()
    assert entry["Type"] == "Application"
    assert entry["Version"] == "1.4"  # Debian 12's validator rejects 1.5
    assert entry["Name"] == "TPOT Bench"
    for key in ("Name[zh_CN]", "GenericName[zh_CN]", "Comment[zh_CN]", "Keywords[zh_CN]"):
        assert any("\u4e00" <= ch <= "\u9fff" for ch in entry[key]), key
    assert entry["Icon"] == icons.APP_ID
    assert entry["Exec"] == "tpotbench"  # install.sh rewrites it to the installed path
    assert entry["Terminal"] == "false"


def test_desktop_entry_matches_the_window_identity() -> None:
    from app.ui.app_setup import APP_NAME

    # Launchers group the running window with this entry through WM_CLASS (X11), which Qt
    # derives from QCoreApplication.applicationName().
    assert _entry()["StartupWMClass"] == APP_NAME == "tpotbench"


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None, reason="no desktop-file-utils")
def test_desktop_entry_passes_the_validator() -> None:
    done = subprocess.run(["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True)
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr
