"""Keep the user's own custom GPUs out of these tests: each test gets an empty config folder."""

import pytest


@pytest.fixture(autouse=True)
def isolated_config_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TPOTBENCH_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path / "config"
