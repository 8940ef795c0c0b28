"""Where `migrate --json REPORT` writes its report: a place made ready before the run
writes anything, so that a report that cannot be written stops the run up front instead
of after the tree was rewritten, and a report never overwrites a file the run reads."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from acp_schema.cli_common import os_reason
from acp_schema.cli_output import shown


class ReportError(Exception):
    """The report cannot be written where it was asked for; `str()` says why."""


class StagedReport:
    """A report file made ready before the run writes anything: `stage` refuses a place
    it could not write (a directory, a FIFO, a directory without permission) and a file
    the run reads (a report over a migrated or scanned file would overwrite it, even
    under --check); `commit` renames the finished report into place."""

    def __init__(self, path: Path, target: Path, temporary: Path) -> None:
        self.path = path
        self.target = target
        self.temporary = temporary

    @classmethod
    def stage(cls, path: Path, inputs: Iterable[Path]) -> StagedReport:
        target = Path(os.path.realpath(path))  # a symlink's target is what gets written
        try:
            info: os.stat_result | None = target.stat()
        except FileNotFoundError:
            info = None
        except OSError as err:
            raise ReportError(os_reason(err)) from None
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise ReportError("is a directory")
        if info is not None and not stat.S_ISREG(info.st_mode):
            raise ReportError("not a regular file")
        if info is not None:
            for source in inputs:
                with contextlib.suppress(OSError):
                    if os.path.samestat(info, source.stat()):
                        raise ReportError(
                            f"is {shown(source)}, a file this run reads; the report would "
                            "overwrite it. Choose another file"
                        )
        if not target.parent.is_dir():
            raise ReportError(f"no such directory {shown(path.parent)}")
        try:
            handle, name = tempfile.mkstemp(dir=target.parent, prefix=".acp-", suffix=".tmp")
        except OSError as err:
            raise ReportError(f"cannot write in {shown(path.parent)}: {os_reason(err)}") from None
        os.close(handle)
        mode = stat.S_IMODE(info.st_mode) if info is not None else 0o666 & ~_umask()
        with contextlib.suppress(OSError):
            os.chmod(name, mode)
        return cls(path, target, Path(name))

    def commit(self, text: str) -> None:
        """Write the report (OSError if that fails; the staged file is then removed)."""
        try:
            with open(self.temporary, "w", encoding="utf-8") as stream:
                stream.write(text)
            os.replace(self.temporary, self.target)
        finally:
            self.discard()

    def discard(self) -> None:
        self.temporary.unlink(missing_ok=True)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
