"""Where the YAML configs live (``pyhighlights/configs``, shipped as package data)."""
from __future__ import annotations

from pathlib import Path

CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs"
