"""Browser tests of the viewer page."""
from headless_browser import browser  # noqa: F401 - the fixture
