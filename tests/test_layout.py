"""The tests folder mirrors app/: tests/<package>/test_<module>.py, every folder a package."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
# Folders of tests that mirror a top-level folder of the repository instead of a package of app/.
OUTSIDE_APP = {"packaging"}


def _test_folders() -> list[Path]:
    return sorted(
        {p.parent for p in TESTS.rglob("test_*.py") if "__pycache__" not in p.parts} - {TESTS}
    )


def test_every_test_folder_is_a_package() -> None:
    # Without __init__.py pytest puts the folder itself on sys.path: two test files with one
    # name then collide, and tests/bench/http would shadow the standard library's http.
    missing = sorted(
        {
            str(level.relative_to(ROOT))
            for folder in _test_folders()
            for level in [folder, *folder.parents]
            if level.is_relative_to(TESTS) and not (level / "__init__.py").exists()
        }
    )
    assert not missing, f"add an empty __init__.py to: {missing}"


def test_every_test_folder_mirrors_an_app_package() -> None:
    strays = [
        str(folder.relative_to(ROOT))
        for folder in _test_folders()
        if folder.relative_to(TESTS).parts[0] not in OUTSIDE_APP
        and not (ROOT / "app" / folder.relative_to(TESTS) / "__init__.py").exists()
    ]
    assert not strays, f"tests/<package>/ follows app/<package>/; no such package for {strays}"
