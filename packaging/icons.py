"""App icon files rendered from the one SVG: hicolor PNGs (committed) and .ico/.icns (build time).

Run `python packaging/icons.py` after editing resources/icons/app/tpotbench.svg to regenerate the
committed PNGs. The spec calls `platform_icon()` on Windows and macOS.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

APP_ID = "io.github.tpotbench.TPOTBench"
ROOT = Path(__file__).resolve().parent.parent
ICON_DIR = ROOT / "resources" / "icons" / "app"
SVG = ICON_DIR / "tpotbench.svg"
HICOLOR = ICON_DIR / "hicolor"
HICOLOR_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
# Sizes packed into the platform icon files (Windows shows up to 256; macOS wants up to 1024).
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
ICNS_SIZES = (16, 32, 64, 128, 256, 512, 1024)


def hicolor_png(size: int, root: Path = HICOLOR) -> Path:
    """Where the freedesktop icon theme expects the PNG of one size."""
    return root / f"{size}x{size}" / "apps" / f"{APP_ID}.png"


def render(size: int, svg: Path = SVG):
    """The SVG drawn into a transparent size×size QImage (no QGuiApplication needed)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"{svg} is not a valid SVG; fix it and run this script again")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    return image


def write_hicolor(svg: Path = SVG, root: Path = HICOLOR) -> list[Path]:
    """Render every hicolor size; returns the PNG paths written."""
    written = []
    for size in HICOLOR_SIZES:
        path = hicolor_png(size, root)
        path.parent.mkdir(parents=True, exist_ok=True)
        if not render(size, svg).save(str(path), "PNG"):
            raise OSError(f"could not write {path}")
        written.append(path)
    return written


def _with_pillow(path: Path, sizes: tuple[int, ...], svg: Path) -> bool:
    try:
        from PIL import Image
    except ImportError:
        return False
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    def pil_image(size: int):
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        render(size, svg).save(buffer, "PNG")
        buffer.close()
        return Image.open(io.BytesIO(bytes(data))).convert("RGBA")

    biggest = pil_image(max(sizes))
    if path.suffix == ".ico":
        biggest.save(path, format="ICO", sizes=[(s, s) for s in sizes])
    else:
        extra = [pil_image(s) for s in sizes if s != max(sizes)]
        biggest.save(path, format="ICNS", append_images=extra)
    return True


def _with_qt(path: Path, size: int, svg: Path) -> bool:
    # Qt's ico/icns writers store one image only; still a usable icon when Pillow is missing.
    from PySide6.QtGui import QImageWriter

    fmt = path.suffix.lstrip(".").encode()
    if fmt not in [bytes(f) for f in QImageWriter.supportedImageFormats()]:
        return False
    writer = QImageWriter(str(path), fmt)
    return writer.write(render(size, svg))


def platform_icon(system: str, out_dir: Path, svg: Path = SVG) -> Path | None:
    """The .ico (Windows) or .icns (macOS) for the executable, or None where none is used."""
    if system == "win32":
        path, sizes = out_dir / "tpotbench.ico", ICO_SIZES
    elif system == "darwin":
        path, sizes = out_dir / "tpotbench.icns", ICNS_SIZES
    else:
        return None  # Linux takes the hicolor PNGs via the desktop entry, not the executable
    out_dir.mkdir(parents=True, exist_ok=True)
    if _with_pillow(path, sizes, svg):
        return path
    if _with_qt(path, max(sizes), svg):
        print(f"icons: Pillow not installed, wrote a single-size {path.name} with Qt")
        return path
    print(f"icons: neither Pillow nor Qt can write {path.suffix}; building without an app icon")
    return None


def main() -> int:
    for path in write_hicolor():
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
