"""Swapping two file names in one step, where the system can: the writer's way to
check, after the fact, that the file it replaced was the one it had checked before."""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import sys
from pathlib import Path
from typing import Any


def exchange(first: Path, second: Path) -> bool:
    """Swap two names atomically (Linux `renameat2(..., RENAME_EXCHANGE)`); False where
    the system or the file system cannot, without changing anything; OSError if the
    swap itself fails."""
    call = _renameat2()
    if call is None:
        return False
    done = call(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE)
    if done == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):  # not on this file system
        return False
    raise OSError(code, os.strerror(code), str(second))


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


@functools.cache
def _renameat2() -> Any:
    """libc's renameat2, or None (not Linux, or a libc without it)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
    function.argtypes += [ctypes.c_uint]
    function.restype = ctypes.c_int
    return function
