"""The shareable HTML report: one self-contained file from result files, for the CLI
(`tpotbench report DIR --html FILE`) and the window (File > Export report). No Qt here."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path

from app.bench.capacity.search_run import SEARCH_FILE
from app.bench.results.point_result import PointResult
from app.bench.results.write import atomic_write_text
from app.bench.schema.codec import SchemaError
from app.bench.schema.search_doc import SearchDoc, read_search_doc
from app.jsonfile import JSONProblem, loads
from app.report.document import render
from app.report.model import report_points
from app.report.text import LANGUAGES

Search = tuple[str, SearchDoc]  # (file name, the search.json document)


def find_searches(paths: Iterable[str | Path]) -> tuple[list[Search], list[str]]:
    """The capacity searches (`tpotbench search`'s search.json) in these files and folders,
    and one line per such file that cannot be read."""
    found: list[Search] = []
    problems: list[str] = []
    for item in paths:
        path = Path(item)
        path = path / SEARCH_FILE if path.is_dir() else path
        if path.name != SEARCH_FILE or not path.is_file():
            continue
        try:
            doc = loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, JSONProblem) as exc:
            problems.append(f"{path}: {exc}")
            continue
        try:
            found.append((str(path.parent.name + "/" + path.name), read_search_doc(doc)))
        except SchemaError:
            problems.append(f"{path}: not a tpotbench search summary")
    return found, problems


def render_report(
    points: Sequence[PointResult],
    lang: str = "en",
    now: datetime | None = None,
    searches: Sequence[Search] = (),
    definitions: Sequence[str] = (),
) -> str:
    """The report's HTML for these points, in 'en' or 'zh_CN'; `definitions` adds the other
    tools' figures (e.g. ["vllm", "guidellm"])."""
    if lang not in LANGUAGES:
        raise ValueError(f"report language {lang!r}: choose one of {', '.join(LANGUAGES)}")
    return render(report_points(points, lang), lang, now, searches, definitions)


def write_report(
    path: str | Path,
    points: Sequence[PointResult],
    lang: str = "en",
    searches: Sequence[Search] = (),
    definitions: Sequence[str] = (),
) -> Path:
    """Render and write atomically (a reader never sees half a report)."""
    html = render_report(points, lang, searches=searches, definitions=definitions)
    atomic_write_text(Path(path), html)
    return Path(path)


__all__ = ["LANGUAGES", "find_searches", "render_report", "write_report"]
