"""The one output layer of the command line: what reaches stdout and stderr, and what
happens when they cannot take it.

`acp_schema.cli.main` puts every command's output through `output_layer()`, so no
command has to remember any of this:

* **Nothing reaches the terminal raw.** Control characters (C0 but line feed and tab,
  DEL, C1) and the invisible marks that reorder text on screen are written as `\\x1b` /
  `\\u202e` escapes; a name that is not valid UTF-8 (Python decodes its bytes as lone
  surrogates, "surrogateescape") shows each undecodable byte as `\\xff`, whatever the
  stream's encoding or error policy (a strict UTF-8 stdout would raise instead).
  `shown(name)` escapes line feeds and tabs too: a file or schema name then stays on its
  one line and in its one column.
* **A stream that fails is one line and a defined exit code.** A write or flush that the
  OS refuses (a full disk, `/dev/full`, an I/O error) raises `OutputError`, which `main`
  reports as `acp-schema COMMAND: cannot write to standard output: REASON`, exit
  `EXIT_OUTPUT`; a reader that went away (EPIPE) ends quietly with 141. The failed stream
  is then pointed at /dev/null, so that Python's own flush at exit does not fail again
  ("Exception ignored ..."). A stdout that was closed before the command started (`>&-`)
  is refused before anything is done. Errors of stderr itself are dropped: there is
  nowhere left to report them, and the exit code still tells.

* **GitHub workflow annotations** (`annotation`: `::error file=...,line=...::message`, the
  `--format github` output of `diff` and `migrate`) encode exactly what the runner decodes:
  `%`, CR and LF in the message, and `:` `,` too in a property, so nothing a name holds can
  end the line or start another command, and everything reads back as given.

`OutputError` is not an `OSError` on purpose: a command that handles the errors of its
own files (`except OSError`) must not mistake its output stream for one of them.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any, Literal

EXIT_OUTPUT = 74  # the output could not be written (sysexits.h's EX_IOERR)

# C0 controls but line feed and tab, DEL, C1 controls, and the marks that reorder or
# break text invisibly (Arabic letter mark, LRM/RLM, line/paragraph separators, the bidi
# embeddings, overrides and isolates); lone surrogates are handled apart (see _escape).
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"
_IN_STREAM = re.compile(f"[{_CONTROLS}\ud800-\udfff]")
_IN_NAME = re.compile(f"[\t\n{_CONTROLS}\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte, as surrogateescape holds it
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(value: object) -> str:
    """`str(value)` fit for one field of one line: every control character (line feed
    and tab included), reordering mark and undecodable byte written as an escape."""
    text = str(value)
    return text if _IN_NAME.search(text) is None else _IN_NAME.sub(_escape, text)


def printable(text: str) -> str:
    """`text` as the streams write it: escapes as `shown`, but line feeds and tabs kept
    (for text that is meant to span lines, such as message content)."""
    return text if _IN_STREAM.search(text) is None else _IN_STREAM.sub(_escape, text)


class OutputError(Exception):
    """stdout (or the report stream) could not be written; `str()` says why in one line."""

    def __init__(self, stream: str, cause: BaseException | None) -> None:
        reason = "it is closed" if cause is None else _reason(cause)
        super().__init__(f"cannot write to {stream}: {reason}")
        self.cause = cause

    @property
    def reader_left(self) -> bool:
        """The reader of a pipe went away (`| head`): not an error, the end of the output."""
        return isinstance(self.cause, BrokenPipeError)


def _reason(cause: BaseException) -> str:
    return (cause.strerror if isinstance(cause, OSError) else None) or str(cause)


class _SafeStream(io.TextIOBase):
    """A text stream that escapes what it is given (see the module's docstring) and turns
    a failure of the stream under it into `OutputError` naming the stream, or, without a
    name (stderr: nowhere left to say it), into nothing."""

    def __init__(self, inner: IO[str] | None, name: str | None) -> None:
        super().__init__()
        self._inner = inner
        self._name = name
        self.failed: BaseException | None = None

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._inner, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self._inner, "errors", None)

    @property
    def buffer(self) -> _SafeBinary | None:
        raw = getattr(self._inner, "buffer", None)
        return None if raw is None else _SafeBinary(raw, self)

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        try:
            return self._inner is not None and self._inner.isatty()
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        if self._inner is None:
            raise io.UnsupportedOperation("no stream")
        return self._inner.fileno()

    def write(self, text: str) -> int:
        self.write_raw(printable(text))
        return len(text)

    def write_raw(self, text: str) -> None:
        """Write `text` without escaping it (a progress bar's carriage returns)."""
        if self.failed is not None or self._inner is None:
            self._lost(self.failed)
            return
        try:
            self._inner.write(_encodable(text, self.encoding))
        except (OSError, ValueError) as err:
            self._fail(err)

    def flush(self) -> None:
        if self.failed is not None or self._inner is None:
            return
        try:
            self._inner.flush()
        except (OSError, ValueError) as err:
            self._fail(err)

    def close(self) -> None:
        """Nothing to do: the stream under it belongs to the process, and every write went
        straight to it. (The finalizer calls this when the layer is dropped, maybe after
        that stream was closed: flushing it then raised in a finalizer on Python 3.13.)"""

    def _fail(self, err: BaseException) -> None:
        self.failed = err
        if self._inner is not None:
            _point_at_devnull(self._inner)
        self._lost(err)

    def _lost(self, err: BaseException | None) -> None:
        if self._name is not None:
            raise OutputError(self._name, err)


class _SafeBinary:
    """`stream.buffer` of a `_SafeStream`: bytes written as they are (a patch must keep
    the file's bytes), with the same failure handling."""

    def __init__(self, raw: Any, text: _SafeStream) -> None:
        self._raw = raw
        self._text = text

    def write(self, data: bytes) -> int:
        self._call("write", data)
        return len(data)

    def flush(self) -> None:
        self._call("flush")

    def _call(self, name: str, *args: Any) -> None:
        if self._text.failed is not None:
            self._text._lost(self._text.failed)
            return
        try:
            self._text._inner.flush() if self._text._inner is not None else None
            getattr(self._raw, name)(*args)
        except (OSError, ValueError) as err:
            self._text._fail(err)


def _encodable(text: str, encoding: str) -> str:
    """`text` with what `encoding` cannot hold (an emoji on an ASCII terminal) escaped,
    instead of a UnicodeEncodeError half-way through a report."""
    if encoding.lower().replace("-", "").replace("_", "") == "utf8":
        return text  # holds any character but a surrogate, and those are escaped already
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return text.encode(encoding, "backslashreplace").decode(encoding)
    except LookupError:
        pass
    return text


def _point_at_devnull(stream: IO[str]) -> None:
    """Point the descriptor under `stream` at /dev/null: the bytes still in its buffer
    are then flushed there at exit, quietly, instead of failing a second time."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return  # no descriptor (a test's capture): nothing will flush at exit
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(devnull, fd)
    except OSError:
        pass
    finally:
        os.close(devnull)


def stdout_closed() -> bool:
    """Whether the process started with no stdout (`>&-`): Python then sets it to None."""
    return sys.stdout is None


@contextmanager
def output_layer() -> Iterator[None]:
    """Put stdout and stderr behind the layer for the block (whatever they are: a
    terminal, a pipe, a file, or a test's capture), then put the streams back."""
    saved = sys.stdout, sys.stderr
    sys.stdout = _SafeStream(saved[0], "standard output")
    sys.stderr = _SafeStream(saved[1], None)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def write_raw(stream: IO[str], text: str) -> None:
    """Write control text (a carriage return) as it is when `stream` is the layer's."""
    if isinstance(stream, _SafeStream):
        stream.write_raw(text)
    else:
        stream.write(text)


def reserve_standard_descriptors() -> None:
    """Open /dev/null on whichever of descriptors 0, 1, 2 the process started without,
    so that no file the command opens lands there (and gets a child's output, or our
    own prints). Python has already set the matching `sys` stream to None. `open` takes
    the lowest free descriptor: /dev/null is opened until it lands above 2."""
    while True:
        try:
            fd = os.open(os.devnull, os.O_RDWR)
        except OSError:
            return
        if fd > 2:
            os.close(fd)
            return


# GitHub Actions workflow commands (see the module docstring).
Level = Literal["error", "warning", "notice"]


def _github_encode(text: str, extra: str = "") -> str:
    return "".join(f"%{ord(char):02X}" if char in "%\r\n" + extra else char for char in text)


def annotation(
    level: Level,
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    col: int | None = None,
    title: str | None = None,
) -> str:
    """One workflow command line; `line` and `col` are 1-based, as GitHub counts them."""
    properties = [
        f"{name}={_github_encode(str(value), ':,')}"
        for name, value in (("file", file), ("line", line), ("col", col), ("title", title))
        if value is not None
    ]
    head = f"::{level} {','.join(properties)}" if properties else f"::{level}"
    return f"{head}::{_github_encode(message)}"


# JSON documents (`--format json`, `--json`): one encoder for every command.
def json_document(value: Any) -> str:
    """`value` as one indented JSON document, ASCII only: every other character (and a
    name's undecodable byte, held as a lone surrogate) escaped the JSON way (`\\udcff`), so
    any JSON parser reads it back and `os.fsencode` gives the name's bytes again."""
    return json.dumps(value, indent=2, ensure_ascii=True, allow_nan=False)


def diagnostic(line: str) -> None:
    """One line on stderr, whatever the names in it hold (`shown`: a line feed or tab in a
    file name is an escape, so the line stays one line and cannot start a GitHub workflow
    command of its own)."""
    print(shown(line), file=sys.stderr, flush=True)
