#!/usr/bin/env bash
# The test command of the README and of CI: installs what the browser tests need when it is missing, then runs
# the default set (every test not marked slow) in one pytest run of two worker processes with one thread each.
#
#   scripts/test.sh                  # the default set (CI runs exactly this)
#   scripts/test.sh --all            # every test: the default set and the slow ones, in one run
#   scripts/test.sh -m slow          # the slow tests only
#   scripts/test.sh tests/viewer -x  # extra arguments go to pytest
#
# PYTHON=/path/to/python picks another interpreter (default: .venv/bin/python, the README's virtual environment).
set -uo pipefail
cd "$(dirname "$0")/.."
# Without PYTHON=, the README's virtual environment .venv, created and installed here when it is missing.
# Without byte-compiling (--no-compile: Python compiles what it imports on first use; compiling all of torch's files
# cost about 80 s of a fresh install). torch comes from pip, which finds the CPU build constraints.txt pins; the rest
# from uv (PyPI's `uv`, which downloads in parallel: about 20 s against pip's 100 here), or from pip without it.
if [ -z "${PYTHON:-}" ] && [ ! -x .venv/bin/python ]; then
    echo "scripts/test.sh: creating .venv and installing the project with its test dependencies (.[dev])" >&2
    python3 -m venv .venv && .venv/bin/python -m pip install -q --no-compile -c constraints.txt torch || {
        echo "scripts/test.sh: could not create .venv (see above)" >&2; exit 1; }
    { .venv/bin/python -m pip install -q --no-compile uv &&
      .venv/bin/python -m uv pip install -q --python .venv/bin/python -c constraints.txt -e ".[dev]"; } ||
    .venv/bin/python -m pip install -q --no-compile -c constraints.txt -e ".[dev]" || {
        echo "scripts/test.sh: could not install the project into .venv (see above)" >&2; exit 1; }
fi
PYTHON=${PYTHON:-.venv/bin/python}

if [ ! -x "$PYTHON" ]; then
    echo "scripts/test.sh: PYTHON=$PYTHON is not an executable interpreter" >&2
    exit 1
fi

have_browser() {
    { command -v chromium >/dev/null || command -v chromium-browser >/dev/null; } && command -v chromedriver >/dev/null
}

# The HTML viewer's tests drive headless Chromium through its driver (Debian packages chromium, chromium-driver).
if ! have_browser; then
    if ! command -v apt-get >/dev/null; then
        echo "scripts/test.sh: Chromium and chromedriver are missing and there is no apt-get to install them;" >&2
        echo "  install both with your package manager (the viewer tests fail without them), then rerun." >&2
        exit 1
    fi
    if [ "$(id -u)" -eq 0 ]; then
        SUDO=()
    elif command -v sudo >/dev/null; then
        SUDO=(sudo)
    else
        echo "scripts/test.sh: Chromium and chromedriver are missing; installing them needs root and there is no" >&2
        echo "  sudo: as root run  apt-get install chromium chromium-driver  then rerun." >&2
        exit 1
    fi
    echo "scripts/test.sh: installing chromium and chromium-driver (apt-get) for the viewer tests" >&2
    if ! { "${SUDO[@]}" apt-get update -qq &&
           "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; } ||
       ! have_browser; then
        echo "scripts/test.sh: could not install chromium and chromium-driver with apt-get (see above);" >&2
        echo "  install them yourself, then rerun." >&2
        exit 1
    fi
fi

# One CPU thread per process (README, "Threads"). pyproject's `-m 'not slow'` selects the default set; --all
# replaces it with `-m "slow or not slow"` (one run: neither worker waits at the end of one set for the other's last
# test); an -m among the arguments comes later and wins. The 25 slowest tests are listed at the end.
marker=()
arguments=()
for argument in "$@"; do
    if [ "$argument" = "--all" ]; then
        marker=(-m "slow or not slow")
    else
        arguments+=("$argument")
    fi
done
# With PYTHONDONTWRITEBYTECODE set (container images often set it), no process keeps the bytecode it compiles,
# so each of the tests' fresh processes (DDP ranks, scripts run as subprocesses) compiled the sources of torch,
# Lightning and their imports again: about 15 s of CPU each here, 8 % of the default set. The test run keeps it.
OMP_NUM_THREADS=1 env -u PYTHONDONTWRITEBYTECODE "$PYTHON" -m pytest -q -n 2 --durations=25 "${marker[@]}" \
    "${arguments[@]}"
status=$?
[ "$status" -eq 5 ] && exit 0  # the arguments selected no test
exit "$status"
