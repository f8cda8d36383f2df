"""packaging/linux/install.sh --user / --uninstall against a fake bundle and a throwaway HOME."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "packaging" / "linux" / "install.sh"
APP_ID = "io.github.tpotbench.TPOTBench"
SIZES = ("16x16", "22x22", "24x24", "32x32", "48x48", "64x64", "128x128", "256x256", "512x512")


def run(home: Path, data: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "XDG_DATA_HOME": str(data)}
    return subprocess.run(
        ["bash", str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    # A space in the data folder: Exec= must be quoted for the entry to stay valid.
    return tmp_path / "home", tmp_path / "my data"


def test_install_then_uninstall_round_trip(fake_bundle: Path, dirs: tuple[Path, Path]) -> None:
    home, data = dirs
    # Another app's icon in the same theme folder must survive our uninstall.
    other = data / "icons" / "hicolor" / "48x48" / "apps" / "org.example.Other.png"
    other.parent.mkdir(parents=True)
    other.write_bytes(b"not ours")

    done = run(home, data, "--user", "--bundle", str(fake_bundle))
    assert done.returncode == 0, done.stderr

    app_dir = data / "tpotbench"
    assert (app_dir / "_internal" / "marker.txt").read_text() == "bundle payload\n"
    link = home / ".local" / "bin" / "tpotbench"
    assert os.readlink(link) == str(app_dir / "tpotbench")
    out = subprocess.run([str(link), "--version"], capture_output=True, text=True, timeout=10)
    assert out.stdout == "fake tpotbench --version\n"

    desktop = data / "applications" / f"{APP_ID}.desktop"
    lines = desktop.read_text(encoding="utf-8").splitlines()
    assert f'Exec="{app_dir}/tpotbench"' in lines
    assert f"TryExec={app_dir}/tpotbench" in lines
    assert f"Icon={APP_ID}" in lines
    if shutil.which("desktop-file-validate"):
        check = subprocess.run(["desktop-file-validate", str(desktop)], capture_output=True)
        assert check.returncode == 0, check.stdout + check.stderr

    icons = data / "icons" / "hicolor"
    for size in SIZES:
        installed = icons / size / "apps" / f"{APP_ID}.png"
        source = ROOT / "resources/icons/app/hicolor" / size / "apps" / f"{APP_ID}.png"
        assert installed.read_bytes() == source.read_bytes()
    svg = icons / "scalable" / "apps" / f"{APP_ID}.svg"
    assert svg.read_bytes() == (ROOT / "resources/icons/app/tpotbench.svg").read_bytes()

    # Installing again replaces the copy (a stale file from the old copy disappears).
    (app_dir / "stale.txt").write_text("old")
    again = run(home, data, "--user", "--bundle", str(fake_bundle))
    assert again.returncode == 0, again.stderr
    assert not (app_dir / "stale.txt").exists()

    gone = run(home, data, "--user", "--uninstall")
    assert gone.returncode == 0, gone.stderr
    assert not app_dir.exists()
    assert not link.exists() and not link.is_symlink()
    assert not desktop.exists()
    assert sorted(p.name for p in icons.rglob("*.png")) == ["org.example.Other.png"]
    assert not list(icons.rglob("*.svg"))
    assert (
        gone.stdout.count("removed ") == 1 + len(SIZES) + 1 + 1 + 1
    )  # entry, PNGs, SVG, link, app

    twice = run(home, data, "--user", "--uninstall")
    assert twice.returncode == 0
    assert "nothing to remove" in twice.stdout


def test_refuses_a_folder_it_did_not_create(fake_bundle: Path, dirs: tuple[Path, Path]) -> None:
    home, data = dirs
    foreign = data / "tpotbench"
    foreign.mkdir(parents=True)
    (foreign / "precious.txt").write_text("keep me")
    for args in (("--user", "--bundle", str(fake_bundle)), ("--user", "--uninstall")):
        done = run(home, data, *args)
        assert done.returncode == 1
        assert "was not installed by this script" in done.stderr
    assert (foreign / "precious.txt").read_text() == "keep me"


def test_bad_invocations_say_what_to_do(tmp_path: Path, dirs: tuple[Path, Path]) -> None:
    home, data = dirs
    no_user = run(home, data, "--uninstall")
    assert no_user.returncode == 2 and "--user" in no_user.stderr
    unknown = run(home, data, "--user", "--system")
    assert unknown.returncode == 2 and "unknown option '--system'" in unknown.stderr
    missing = run(home, data, "--user", "--bundle", str(tmp_path / "nowhere"))
    assert missing.returncode == 1
    assert "packaging/build.py" in missing.stderr
    assert not (data / "applications").exists()
