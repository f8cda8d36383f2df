"""UI language (English or Simplified Chinese) and a font that renders CJK."""

from __future__ import annotations

import logging

from PySide6.QtCore import QLibraryInfo, QLocale, QSettings, QTranslator
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QApplication

from app.paths import resources_dir

LANGUAGES: tuple[str, ...] = ("en", "zh_CN")
SETTINGS_KEY = "ui/language"  # "", "en" or "zh_CN"; "" follows the system locale

# Tried in order; the first installed one becomes the fallback family for Han characters.
CJK_FAMILIES: tuple[str, ...] = (
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "WenQuanYi Micro Hei",
    "Microsoft YaHei",
    "PingFang SC",
    "Hiragino Sans GB",
    "Droid Sans Fallback",
)

log = logging.getLogger(__name__)


def system_language() -> str:
    locale = QLocale.system()
    return "zh_CN" if locale.language() == QLocale.Language.Chinese else "en"


def choose_language(requested: str | None, settings: QSettings) -> str:
    """--lang wins, then the language picked in the menu, then the system locale."""
    if requested in LANGUAGES:
        return str(requested)
    saved = str(settings.value(SETTINGS_KEY, "") or "")
    if saved in LANGUAGES:
        return saved
    return system_language()


class Translations:
    """Owns the installed QTranslators so the language can be switched at run time."""

    def __init__(self, app: QApplication) -> None:
        self._app = app
        self._installed: list[QTranslator] = []
        self.language = "en"

    def install(self, language: str) -> bool:
        """Install the app's and Qt's own translations; False if the app's file is missing."""
        for translator in self._installed:
            self._app.removeTranslator(translator)
        self._installed.clear()
        self.language = language
        QLocale.setDefault(QLocale("zh_CN" if language == "zh_CN" else "en_US"))
        if language == "en":
            apply_font(self._app, language)
            return True
        ours = QTranslator(self._app)
        ok = ours.load(f"tpotbench_{language}", str(resources_dir() / "i18n"))
        if ok:
            self._app.installTranslator(ours)
            self._installed.append(ours)
        else:
            log.warning("translation file tpotbench_%s.qm not found", language)
        qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
        qtbase = QTranslator(self._app)
        if qtbase.load(f"qtbase_{language}", qt_dir):
            self._app.installTranslator(qtbase)
            self._installed.append(qtbase)
        apply_font(self._app, language)
        return ok


def cjk_family() -> str | None:
    available = set(QFontDatabase.families())
    return next((f for f in CJK_FAMILIES if f in available), None)


def apply_font(app: QApplication, language: str) -> None:
    """Keep the platform's UI font and add an installed CJK family as fallback.

    fontconfig usually finds one by itself, but bundles and the offscreen platform do not
    always; naming it explicitly means Chinese never renders as boxes when a font exists.
    """
    font = QFont(app.font())
    base = [f for f in font.families() if f not in CJK_FAMILIES] or [font.family()]
    family = cjk_family()
    if family is None:
        if language == "zh_CN":
            log.warning("no CJK font found; install fonts-wqy-microhei or fonts-noto-cjk")
        return
    # Chinese UI: the CJK face first so Latin and Han glyphs share one consistent face.
    families = [family, *base] if language == "zh_CN" else [*base, family]
    font.setFamilies(families)
    app.setFont(font)
