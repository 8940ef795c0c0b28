"""A progress bar for runs over many files, drawn on a terminal only (the caller decides:
stderr is a terminal and the run is not quiet)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from acp_schema.cli_output import write_raw

# Called with (files done, files in all) as a run goes.
Progress = Callable[[int, int], None]


def counter(progress: Progress | None, done: int, total: int) -> Callable[[], None]:
    """Report `done` of `total` files now; the function returned counts one more."""
    if progress:
        progress(done, total)

    def tick() -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, total)

    return tick


class ProgressBar:
    """A one-line text bar on a terminal, redrawn at most ten times a second."""

    WIDTH = 30

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last < 0.1:
            return
        self.last = now
        filled = self.WIDTH * done // total if total else self.WIDTH
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        write_raw(self.stream, f"\r[{bar}] {done}/{total} files")
        self.stream.flush()

    def clear(self) -> None:
        write_raw(self.stream, "\r" + " " * (self.WIDTH + 30) + "\r")
        self.stream.flush()
