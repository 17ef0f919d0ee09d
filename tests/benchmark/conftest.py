"""The benchmark tests open its HTML table in the same headless Chromium as the viewer tests."""
from headless_browser import browser  # noqa: F401 - the fixture
