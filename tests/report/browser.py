"""Open an HTML file the way a user does: in a real headless Chromium (the distribution's package),
reading back the DOM after its scripts ran, or a screenshot."""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def chromium_binary() -> str:
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip(
        "no Chromium on this machine (apt-get install chromium): the report cannot be opened "
        "in a real browser here"
    )


def _run(page: Path, profile: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    # A private profile per call: parallel test runs must not share Chromium's profile lock.
    # The proxy points at a closed port, so anything the page tried to fetch would fail.
    cmd = [
        chromium_binary(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        "--proxy-server=http://127.0.0.1:9",
        f"--user-data-dir={profile}",
        *flags,
        page.resolve().as_uri(),
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def dump_dom(page: Path, profile: Path) -> str:
    done = _run(page, profile, "--dump-dom")
    assert done.returncode == 0 and "<html" in done.stdout, done.stderr[-2000:]
    return done.stdout


def screenshot(page: Path, out: Path, profile: Path, size: str = "1400,2400") -> Path:
    done = _run(page, profile, f"--window-size={size}", f"--screenshot={out}")
    assert done.returncode == 0 and out.exists(), done.stderr[-2000:]
    return out


class Dom(HTMLParser):
    """What the tests read from a rendered page: elements with attributes, cell texts, text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.rows: list[list[str]] = []
        self.text: list[str] = []
        self.titles: list[str] = []  # the page's <title> first, then the charts'
        self._title: list[str] | None = None
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}))
        if tag == "title":
            self._title = []
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "title" and self._title is not None:
            self.titles.append("".join(self._title))
            self._title = None
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._title is not None:
            self._title.append(data)
        if self._cell is not None:
            self._cell.append(data)

    def all(self, tag: str) -> list[dict[str, str]]:
        return [attrs for t, attrs in self.elements if t == tag]

    def ids(self) -> set[str]:
        return {attrs["id"] for _, attrs in self.elements if "id" in attrs}

    def row(self, first_cell: str) -> list[str]:
        found = [r for r in self.rows if r and r[0] == first_cell]
        assert found, f"no table row starting with {first_cell!r}"
        return found[0]


def external_references(html: str) -> list[str]:
    """Every attribute or CSS reference that would load something: src/href/xlink:href/action/
    srcset/poster values other than in-page anchors, and url(...) other than url(#...)."""
    found: list[str] = []
    for tag, attrs in Dom(html).elements:
        for name, value in attrs.items():
            loads = name in ("src", "href", "xlink:href", "action", "srcset", "poster", "data")
            if loads and not value.startswith("#"):
                found.append(f"<{tag} {name}={value!r}>")
    lowered = html.lower()
    pos = lowered.find("url(")
    while pos != -1:
        target = lowered[pos + 4 : pos + 64].strip(" '\"")
        if not target.startswith("#"):
            found.append(html[pos : pos + 64])
        pos = lowered.find("url(", pos + 4)
    if "@import" in lowered:
        found.append("@import")
    return found
