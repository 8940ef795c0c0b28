"""The one way the tools read a file they are given (a schema, a migration config, a module
to migrate): bounded in size, regular files only, strict UTF-8, and for JSON strict values.

Every refusal is an `InputError` whose text is one line saying why, without the path (the
caller names the file in its own message style). What is refused, and why:

* anything but a regular file: a FIFO would block until a writer comes, a device such as
  `/dev/zero` never ends. The file is opened with O_NONBLOCK, so even opening a FIFO does
  not wait for a writer, and its type is checked before a byte is read;
* more than `limit` bytes: memory stays bounded whatever the file holds;
* text that is not UTF-8, and JSON strings holding a lone surrogate (`"\\ud800"`): Python
  parses that escape into a `str` that cannot be printed or written as UTF-8 later;
* integers with more digits than CPython converts (`sys.get_int_max_str_digits()`), which
  `json.loads` would report as a bare ValueError;
* JSON nested deeper than the caller's limit (`_validation.json_nesting`), before any recursion.
"""

from __future__ import annotations

import errno
import io
import json
import os
import re
import select
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

from ._validation.json_nesting import too_deep

# Far above any real schema (the bundled ones are < 1 MB) or hand-written module.
MAX_INPUT_BYTES = 64 * 1024 * 1024


class InputError(ValueError):
    """The file cannot be taken as input; the text says why in one line."""


@dataclass(frozen=True)
class FileStamp:
    """What says a file is still the one that was read: the same inode on the same
    device, of the same size, last changed at the same time. A later read of the same
    bytes with the same stamp is the same file (an editor that saves by renaming a new
    file over it changes the inode; one that writes in place, the time)."""

    device: int
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int  # any change of the inode: its mode, owner, links, attributes
    mode: int

    @classmethod
    def of(cls, info: os.stat_result) -> FileStamp:
        return cls(
            info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns,
            info.st_mode,
        )  # fmt: skip


@dataclass(frozen=True)
class ReadFile:
    """A file's bytes and its stamp as it was when they were read."""

    data: bytes
    stamp: FileStamp


def read_bytes(path: str | os.PathLike[str], *, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The whole content of the regular file at `path`, at most `limit` bytes.

    Raises OSError as `open` would (missing file, no permission) and InputError for what
    is not a regular file or is too large.
    """
    return read_file(path, limit=limit).data


def read_file(path: str | os.PathLike[str], *, limit: int = MAX_INPUT_BYTES) -> ReadFile:
    """`read_bytes`, with the stamp the file had when it was opened (taken before the
    first byte is read: a change made while reading shows in a later stamp)."""
    fd = os.open(path, _OPEN_FLAGS)
    with os.fdopen(fd, "rb", buffering=0) as handle:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"not a regular file ({_kind(info.st_mode)})")
        if info.st_size > limit:
            raise InputError(_too_large(info.st_size, limit))
        chunks: list[bytes] = []
        size = 0
        while size <= limit:  # the file may have grown since fstat
            # As much as fstat said is left (and a byte more, to see growth), at least a
            # block: a read of `limit` bytes would allocate all of them for a small file.
            chunk = handle.read(min(limit + 1 - size, max(info.st_size + 1 - size, 1 << 16)))
            if not chunk:  # end of file (a regular file never answers "would block")
                break
            chunks.append(chunk)
            size += len(chunk)
    if size > limit:
        raise InputError(_too_large(size, limit))
    return ReadFile(b"".join(chunks), FileStamp.of(info))


# O_NONBLOCK: opening a named pipe does not wait for a writer (POSIX; elsewhere none).
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def open_lines(path: str | os.PathLike[str]) -> IO[bytes]:
    """A binary reader for a log read line by line: a regular file, or a stream (a named
    pipe, a terminal, `/dev/stdin`), since a log may be written while it is read.

    Neither opening nor reading blocks where a signal could go unnoticed: the file is
    opened with O_NONBLOCK (a pipe without a writer yet does not hold up `open`), and a
    stream is read only once `select` says data (or its end) is there, waking up often
    enough for Ctrl-C or SIGTERM to be acted on while no writer writes.
    """
    fd = os.open(path, _OPEN_FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
    except BaseException:
        os.close(fd)
        raise
    if stat.S_ISREG(mode):
        return os.fdopen(fd, "rb")
    return io.BufferedReader(_PolledStream(fd))


class _PolledStream(io.RawIOBase):
    """A non-blocking descriptor read as a blocking one, in waits of `_POLL_SECONDS`."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while True:
            ready, _, _ = select.select([self._fd], [], [], _POLL_SECONDS)
            if not ready:
                continue  # back in Python code: a pending signal's handler runs here
            try:
                data = os.read(self._fd, len(buffer))
            except BlockingIOError:
                continue
            buffer[: len(data)] = data
            return len(data)

    def fileno(self) -> int:
        return self._fd

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)
        super().close()


_POLL_SECONDS = 0.2


def decode_utf8(data: bytes) -> str:
    """`data` as strict UTF-8 (encoded surrogates are invalid UTF-8 and refused too)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start}: {exc.reason})") from None


def read_text(path: str | os.PathLike[str], *, limit: int = MAX_INPUT_BYTES) -> str:
    return decode_utf8(read_bytes(path, limit=limit))


class _TooManyDigits(Exception):
    pass


class _Constant(Exception):
    pass


def _parse_int(digits: str) -> int:
    most = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 0
    if most and len(digits.lstrip("-")) > most:
        raise _TooManyDigits(most)
    return int(digits)


def _constant(name: str) -> Any:
    raise _Constant(name)


def parse_json(
    text: str,
    *,
    max_depth: int,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> Any:
    """Parse strict JSON (no NaN or Infinity, no lone surrogates, integers CPython can
    convert, at most `max_depth` levels); raise InputError saying where it is not."""
    deep = too_deep(text, max_depth)
    if deep is not None:
        raise InputError(str(deep))
    try:
        doc = json.loads(
            text,
            object_pairs_hook=object_pairs_hook,
            parse_constant=_constant,
            parse_int=_parse_int,
        )
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except _Constant as exc:
        raise InputError(f"invalid JSON: {exc} is not a JSON value") from None
    except _TooManyDigits as exc:
        where = _long_integer(text, int(str(exc)))
        raise InputError(f"invalid JSON: an integer of more than {exc} digits{where}") from None
    if _SURROGATE_ESCAPE.search(text):  # the walk below only when an escape could be one
        pointer = lone_surrogate(doc)
        if pointer is not None:
            raise InputError(
                f"invalid JSON: a lone surrogate (\\uD800-\\uDFFF) in the string at #{pointer}"
            )
    return doc


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(value: object) -> str | None:
    """The JSON Pointer of the first string (a key or a value) of `value` that holds a
    surrogate code point, or None. Walked with a stack: no recursion on deep values."""
    stack: list[tuple[str, object]] = [("", value)]
    while stack:
        pointer, node = stack.pop()
        if isinstance(node, str):
            if _SURROGATE.search(node):
                return _printable(pointer)
        elif isinstance(node, dict):
            for key, item in node.items():
                if isinstance(key, str) and _SURROGATE.search(key):
                    return _printable(f"{pointer}/{_escape(key)}")
                stack.append((f"{pointer}/{_escape(key)}", item))
        elif isinstance(node, list):
            stack.extend((f"{pointer}/{i}", item) for i, item in enumerate(node))
    return None


def _escape(key: object) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def _printable(pointer: str) -> str:
    return pointer.encode("utf-8", "backslashreplace").decode("utf-8")


# A JSON string (skipped whole; see _validation/json_nesting.py) or a run of digits outside strings.
_DIGIT_RUNS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|(\d+)', re.DOTALL)


def _long_integer(text: str, most: int) -> str:
    for match in _DIGIT_RUNS.finditer(text):
        if match.group(1) is not None and len(match.group(1)) > most:
            offset = match.start(1)
            line = text.count("\n", 0, offset) + 1
            column = offset - text.rfind("\n", 0, offset)
            return f" (at line {line}, column {column})"
    return ""


def _too_large(size: int, limit: int) -> str:
    return f"larger than {_mb(limit)} ({size} bytes or more); not read"


def _mb(size: int) -> str:
    return f"{size // (1024 * 1024)} MB" if size >= 1024 * 1024 else f"{size} bytes"


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"
