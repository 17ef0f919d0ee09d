"""The wheel carries everything an installed copy needs to run from any directory (configs included)."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_wheel_ships_every_config_file_the_console_scripts_and_the_registrations(tmp_path):
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                             "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    (wheel,) = tmp_path.glob("pyhighlights-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    configs = {p.relative_to(ROOT).as_posix() for p in (ROOT / "pyhighlights" / "configs").rglob("*.yaml")}
    assert configs and configs <= names, sorted(configs - names)
    assert "pyhighlights/viewer/template.html" in names
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    for script in ("pyhighlights-train", "pyhighlights-evaluate", "pyhighlights-explain", "pyhighlights-report",
                   "pyhighlights-benchmark"):
        assert f"{script} = " in text, script
    # The registrations ship inside the package and are declared as the project's own plugin entry point;
    # no generic top-level package name is taken in site-packages.
    assert "[pyhighlights.registrations]\npyhighlights = pyhighlights.registrations" in text
    registrations = {p.relative_to(ROOT).as_posix() for p in (ROOT / "pyhighlights" / "registrations").glob("*.py")}
    assert registrations and registrations <= names, sorted(registrations - names)
    assert {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")} == {"pyhighlights"}
