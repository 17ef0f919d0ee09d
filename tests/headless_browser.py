"""The ``browser`` fixture: a headless Debian Chromium driven by selenium; a browser that cannot start fails the
test (no skip). A module with its own name, imported by the conftest.py of each folder whose tests open pages."""
from __future__ import annotations

import shutil

import pytest

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--window-size=1280,1600")


def _executable(*names: str) -> str:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    pytest.fail(f"none of {', '.join(names)} is installed: apt-get install chromium chromium-driver "
                f"(scripts/test.sh does it)", pytrace=False)


@pytest.fixture
def browser(tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = _executable("chromium", "chromium-browser")
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(_executable("chromedriver")), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
