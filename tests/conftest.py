"""Fixtures shared across test folders (helpers live in pyhighlights.testing)."""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)


@pytest.fixture(scope="session")
def tiny_beer_dir(tmp_path_factory):
    from pyhighlights.testing import write_tiny_beer

    return write_tiny_beer(tmp_path_factory.mktemp("tiny_beer"))


@pytest.fixture(scope="session")
def learnable_beer_dir(tmp_path_factory):
    from pyhighlights.testing import write_learnable_beer

    return write_learnable_beer(tmp_path_factory.mktemp("learnable_beer"))


@pytest.fixture(scope="session")
def short_learnable_beer_dir(tmp_path_factory):
    from pyhighlights.testing import write_short_learnable_beer

    return write_short_learnable_beer(tmp_path_factory.mktemp("short_learnable_beer"))


@pytest.fixture
def scratch_registry():
    """Entries and kinds a test registers are removed after it."""
    from pyhighlights import kinds, registry

    registry.load_registrations()
    entries, declared = dict(registry._ENTRIES), kinds.kinds()
    yield
    registry._ENTRIES.clear()
    registry._ENTRIES.update(entries)
    kinds._KINDS.clear()
    kinds._KINDS.update(declared)



@pytest.fixture(autouse=True)
def _plots_only_where_checked(request, monkeypatch):
    """A run draws its PNG plots (about 1.5 CPU-s each time) only in the tests marked ``plots``.

    Drawing is the last step of a run and a failure in it is only a warning, so no other test can see it;
    tests/plots checks the drawing itself, and the ``plots`` tests check the files a run leaves."""
    import forked_scripts

    if request.node.get_closest_marker("plots") is not None:
        yield
        return
    import pyhighlights.training.run

    monkeypatch.setattr(pyhighlights.training.run, "plot_run_safely", lambda *args, **kwargs: [])
    forked_scripts.DRAW_PLOTS = False
    yield
    forked_scripts.DRAW_PLOTS = True

# The files that take the most CPU, costliest first. They run first, so that with ``-n 2`` the last test to
# finish is a short one rather than a minute-long training that one worker runs while the other waits
# (with the work-stealing schedule set below: the first worker's queue starts with them).
# Whole files move (their order inside is kept), so a module-scoped fixture is set up once per worker that runs
# part of the file, as in any xdist run.
LONG_FIRST = (
    "tests/family/test_family_learns.py",
    "tests/models/test_grat_learns.py",
    "tests/cluster/test_fault_injection.py",
    "tests/models/test_rnp_learns.py",
    "tests/hardkuma/test_hardkuma_learns.py",
    "tests/cluster/test_ddp_cli.py",
    "tests/cluster/test_launcher.py",
    "tests/benchmark/test_benchmark_suite.py",
    "tests/family/test_family_ddp.py",
)


def pytest_configure(config):
    """Under ``-n``, the work-stealing schedule unless ``--dist`` was given.

    pytest-xdist's default (``load``) hands each worker a run of consecutive tests up front, an eighth of the
    suite each with two workers: the first worker got every file of ``LONG_FIRST`` and trained them one after
    another while the other ran the short tests. ``worksteal`` gives each worker half of the tests in order and
    lets the one that runs out take the not yet started tests at the end of the other's queue: the long tests
    at the front stay where they are and both workers finish together."""
    if getattr(config.option, "dist", "no") == "load" and \
            not any(arg == "-d" or arg.startswith("--dist") for arg in config.invocation_params.args):
        config.option.dist = "worksteal"


def _file(item) -> str:
    return item.nodeid.split("::", 1)[0]


def _rank(item, slow_files: set[str]) -> int:
    """The files holding tests marked slow first (scripts/test.sh runs them with the rest), then the files of
    ``LONG_FIRST``. A slow test's whole file moves with it: moved alone, it left its file's module-scoped
    fixture (the benchmark suite's killed-and-restarted benchmark, 30-45 s) to be built again on the other
    worker for the rest of the file."""
    path = _file(item)
    if path in slow_files:
        return -1
    return LONG_FIRST.index(path) if path in LONG_FIRST else len(LONG_FIRST)


def pytest_collection_modifyitems(config, items):
    slow_files = {_file(item) for item in items if "slow" in item.keywords}
    items.sort(key=lambda item: _rank(item, slow_files))  # stable: files and their tests keep their order
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
