"""The files of a run, read when they are needed instead of all held at once.

A run looks at every file more than once: for facts that span files (where old chunk
classes are declared and re-exported, which names reach a chunk), then to sort out the
files that may be affected, then, for some, again. Holding every file of a tree for all
that time does not scale (forty 30 MB files: 1.2 GB), so `SourceFiles` keeps at most
`cache_bytes` of them in memory and reads the others again, through the one reader,
each time they are walked. What a walk finds unreadable is recorded once (`failed`) and
left out of later walks.

A file that changes between two walks is seen as it was at each; what is written is
checked against the read it was migrated from (`files.write_all`), so no edit is lost.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import overload

from acp_schema._input import InputError, ReadFile, read_file
from acp_schema.cli_common import os_reason

# Enough for the whole of most trees (the benchmark's 2,000 files are 10 MB), little
# next to what parsing one large file takes.
CACHE_BYTES = 64 * 1024 * 1024


class SourceFiles(Sequence[tuple[Path, bytes]]):
    """(path, bytes) of each readable file, in order; iterating reads them one by one."""

    def __init__(self, paths: Sequence[Path], *, cache_bytes: int | None = None) -> None:
        self._paths = list(paths)
        self._cache: dict[Path, ReadFile] = {}
        self._room = CACHE_BYTES if cache_bytes is None else cache_bytes
        self.failed: dict[Path, str] = {}  # path -> why it cannot be read
        for path in self._paths:  # the first walk: which files can be read at all
            self.read(path)

    def read(self, path: Path) -> ReadFile | None:
        """The file's bytes and stamp (cached, or read again); None if it cannot be read."""
        cached = self._cache.get(path)
        if cached is not None:
            return cached
        if path in self.failed:
            return None
        try:
            read = read_file(path)
        except (OSError, InputError) as err:
            self.failed[path] = f"cannot read: {os_reason(err)}"
            return None
        if len(read.data) <= self._room:
            self._cache[path] = read
            self._room -= len(read.data)
        return read

    def data(self, path: Path) -> bytes:
        """The file's bytes; empty if it can no longer be read."""
        read = self.read(path)
        return b"" if read is None else read.data

    def readable(self) -> list[Path]:
        return [path for path in self._paths if path not in self.failed]

    def __iter__(self) -> Iterator[tuple[Path, bytes]]:
        for path in self._paths:
            read = None if path in self.failed else self.read(path)
            if read is not None:
                yield path, read.data

    def __len__(self) -> int:
        return len(self.readable())

    @overload
    def __getitem__(self, index: int) -> tuple[Path, bytes]: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[tuple[Path, bytes]]: ...

    def __getitem__(self, index: int | slice) -> tuple[Path, bytes] | Sequence[tuple[Path, bytes]]:
        if isinstance(index, slice):
            return [(path, self.data(path)) for path in self.readable()[index]]
        path = self.readable()[index]
        return path, self.data(path)
