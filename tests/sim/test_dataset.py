"""The dataset generators' command line: both shipped files are what `main` writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.paths import resources_dir
from app.sim import dataset, multiturn_dataset


@pytest.mark.parametrize(
    ("module", "name"),
    [
        (dataset, "sharegpt_synthetic.json"),
        (multiturn_dataset, "sharegpt_multiturn_synthetic.json"),
    ],
)
def test_main_writes_the_shipped_file(module: object, name: str, tmp_path: Path) -> None:
    out = tmp_path / "sub" / name
    assert module.main([str(out)]) == 0  # type: ignore[attr-defined]
    shipped = resources_dir() / "datasets" / name
    assert out.read_bytes() == shipped.read_bytes()


def test_main_without_one_output_path_is_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert multiturn_dataset.main([]) == 2
    assert "python -m app.sim.multiturn_dataset OUTPUT.json" in capsys.readouterr().err
