"""Freed memory kept in the process heap while explaining (glibc; elsewhere a no-op).

glibc serves every allocation above its mmap threshold (128 KiB to 32 MiB)
with a fresh mapping and unmaps it when freed, so each new tensor of that
size costs its page faults (and the kernel's zeroing) again. Integrated
Gradients allocates many tensors of [steps × documents, tokens, hidden]
(tens of MB) per batch; on one CPU thread those faults measured about a
third of an Integrated Gradients call. Within :func:`heap_kept` large
blocks come from the heap and freed memory stays there for the next one.
"""
from __future__ import annotations

import ctypes
import ctypes.util
from contextlib import contextmanager

# mallopt parameters (malloc.h) and glibc's defaults
_M_TRIM_THRESHOLD, _M_MMAP_MAX = -1, -4
_DEFAULT_TRIM, _DEFAULT_MMAP_MAX = 128 * 1024, 65536
_KEPT_TRIM = 1 << 30


def _glibc():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt, libc.malloc_trim  # noqa: B018 (glibc has both; other C libraries may not)
    except (OSError, AttributeError):
        return None
    return libc


@contextmanager
def heap_kept():
    """Within the block, large allocations are served from the heap, which keeps up to 1 GiB of freed memory;
    afterwards the defaults are set again and the free memory returned to the system."""
    libc = _glibc()
    if libc is None or not (libc.mallopt(_M_TRIM_THRESHOLD, _KEPT_TRIM) and libc.mallopt(_M_MMAP_MAX, 0)):
        yield
        return
    try:
        yield
    finally:
        libc.mallopt(_M_MMAP_MAX, _DEFAULT_MMAP_MAX)
        libc.mallopt(_M_TRIM_THRESHOLD, _DEFAULT_TRIM)
        libc.malloc_trim(0)
