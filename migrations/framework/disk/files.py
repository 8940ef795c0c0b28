"""Which files a migration run looks at, and how a migrated file is written.

Directories are listed with `git ls-files -co --exclude-standard` when they are inside a
git work tree and git is installed, so `.gitignore` (and `.git/info/exclude`, and the
global excludes file) is honoured exactly as git does. Without git, `.gitignore` files
and `.git/info/exclude` are read through the one reader and matched with `pathspec`'s
implementation of git's pattern rules on its RE2 backend, in time linear in a name's
length whatever the patterns (see `GitignoreMatcher`). Files named on the command line
are always taken, ignored or not; `--exclude` applies to all.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import itertools
import os
import re
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from pathspec import GitIgnoreSpec
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

from acp_schema._input import FileStamp, InputError, read_bytes, read_file
from acp_schema.cli_common import interrupts_deferred
from acp_schema.cli_output import shown

from .file_metadata import Kept, apply_kept, kept_by
from .renames import exchange

# Never descended into, git or not.
ALWAYS_SKIPPED = frozenset({".git", ".hg", ".svn", "__pycache__"})
PYTHON_SUFFIXES = (".py",)


class FileChangedError(OSError):
    """The file on disk is not the one that was migrated (edited meanwhile)."""


# --- discovery ---------------------------------------------------------------------------


@dataclass
class Discovery:
    files: list[Path] = field(default_factory=list)
    missing: list[Path] = field(default_factory=list)  # not found, or not listable: see why
    used_git: bool = False
    why: dict[Path, str] = field(default_factory=dict)  # a reason for some of `missing`

    def unusable(self, path: Path, err: OSError) -> None:
        """A path the walk could not look at (a symlink loop, no permission): reported
        on its own while the rest of the run goes on."""
        self.missing.append(path)
        self.why[path] = (err.strerror or str(err)).lower()


def discover(
    paths: Sequence[Path], *, excludes: Sequence[str] = (), gitignore: bool = True
) -> Discovery:
    """The Python files under `paths`, sorted, without duplicates."""
    found = Discovery()
    seen: set[Path] = set()

    def add(path: Path, root: Path) -> None:
        resolved = Path(os.path.realpath(path))  # never raises, loops included
        if resolved in seen or excluded(path, root, excludes):
            return
        seen.add(resolved)
        found.files.append(path)

    for path in paths:
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            found.missing.append(path)
            continue
        except OSError as err:  # ELOOP, EACCES on a parent, ...
            found.unusable(path, err)
            continue
        if stat.S_ISREG(mode):
            add(path, path.parent)
        elif stat.S_ISDIR(mode):
            listed = _git_files(path) if gitignore else None
            found.used_git = found.used_git or listed is not None
            walked = listed if listed is not None else _walk(path, gitignore, found)
            for file in walked:
                if file.suffix in PYTHON_SUFFIXES and not _in_skipped_dir(file, path):
                    add(file, path)
        else:
            found.missing.append(path)
    found.files.sort()
    return found


def excluded(path: Path, root: Path, excludes: Sequence[str]) -> bool:
    """`--exclude` globs: without a `/` they match any one path component (a file or a
    directory name); with one they match the path relative to the PATH argument."""
    if not excludes:
        return False
    try:
        relative = PurePosixPath(path.relative_to(root).as_posix())
    except ValueError:
        relative = PurePosixPath(path.as_posix())
    text = str(relative)
    for pattern in excludes:
        if "/" in pattern.rstrip("/"):
            if fnmatch.fnmatchcase(text, pattern.strip("/")) or fnmatch.fnmatchcase(
                text, pattern.strip("/") + "/*"
            ):
                return True
        elif any(fnmatch.fnmatchcase(part, pattern.rstrip("/")) for part in relative.parts):
            return True
    return False


def _in_skipped_dir(path: Path, root: Path) -> bool:
    try:
        parts = path.relative_to(root).parts[:-1]
    except ValueError:
        parts = path.parts[:-1]
    return any(part in ALWAYS_SKIPPED for part in parts)


def _git_files(directory: Path) -> list[Path] | None:
    """Tracked and untracked-but-not-ignored files, or None without git or a work tree."""
    if shutil.which("git") is None:
        return None
    try:
        inside = subprocess.run(
            ["git", "-C", str(directory), "rev-parse", "--is-inside-work-tree"],
            capture_output=True,
            text=True,
            check=False,
        )
        if inside.returncode != 0 or inside.stdout.strip() != "true":
            return None
        listed = subprocess.run(
            ["git", "-C", str(directory), "ls-files", "-co", "--exclude-standard", "-z", "--", "."],
            capture_output=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    names = [n for n in listed.stdout.decode("utf-8", "surrogateescape").split("\0") if n]
    # `-c` also lists tracked files deleted from the work tree.
    return [directory / name for name in names if (directory / name).is_file()]


# Far above any real .gitignore; a larger one is not read (as one that cannot be).
MAX_GITIGNORE_BYTES = 4 * 1024 * 1024
# pathspec turns each pattern into a regular expression; Python's `re` can take minutes
# on one (`*a*a*a*a*a*a*a*a*a*a*b` against a long name), RE2 takes linear time. The
# `re2` extra of pathspec (google-re2) comes with this project's `migrate` extra.
_BACKEND = "re2"


def _as_text(name: bytes) -> str:
    """A name or pattern as matched: one character per byte (latin-1). Git matches bytes,
    and so `?` takes one byte and any name (not UTF-8 too) can be matched."""
    return name.decode("latin-1")


def _pattern(line: str) -> GitIgnoreSpecPattern:
    """The pattern of one line; a line git cannot use either (`!`, a lone `\\`, `[z-a]`)
    matches nothing, as in git, instead of failing the whole file."""
    try:
        raw, include = GitIgnoreSpecPattern.pattern_to_regex(line)
        if raw is None or include is None:
            return GitIgnoreSpecPattern("")
        # pathspec writes `[!a]` as `[^a]`, which matches a `/` too; in git a bracket
        # expression never matches a slash (`b[!a]` must not match the directory `b/`).
        raw = _NEGATED_SET.sub(lambda m: f"[^{m.group(1)}/", raw)
        return GitIgnoreSpecPattern(re.compile(raw), include)
    except (ValueError, re.error):  # GitIgnorePatternError is a ValueError
        return GitIgnoreSpecPattern("")


_NEGATED_SET = re.compile(r"(?<!\\)\[\^(\]?)")


class GitignoreMatcher:
    """`.gitignore` files read with `pathspec`'s git-compatible patterns, for directories
    git cannot list.

    Each file's patterns are relative to its own directory, and a deeper file's decision
    wins over a shallower one's (within a file, the last matching pattern wins), as in git.
    A directory git ignores is not entered, so nothing under it can be re-included.
    """

    def __init__(self, specs: Sequence[tuple[Path, GitIgnoreSpec]] = ()) -> None:
        self.specs = list(specs)  # shallowest first

    def extended(self, directory: Path, file: Path | None = None) -> GitignoreMatcher:
        """With the patterns of `file` (default: the directory's `.gitignore`) added,
        relative to `directory`."""
        file = directory / ".gitignore" if file is None else file
        try:  # the one reader: a .gitignore that is a FIFO or /dev/zero is no file
            data = read_bytes(file, limit=MAX_GITIGNORE_BYTES)
        except (OSError, InputError):
            return self
        lines = [_as_text(line) for line in data.splitlines()]
        spec = GitIgnoreSpec.from_lines(lines, _pattern, backend=_BACKEND)
        return GitignoreMatcher([*self.specs, (directory.absolute(), spec)])

    def ignored(self, path: Path, *, is_dir: bool) -> bool:
        absolute = path.absolute()
        for base, spec in reversed(self.specs):
            try:
                relative = absolute.relative_to(base).as_posix()
            except ValueError:
                continue
            name = _as_text(os.fsencode(f"{relative}/" if is_dir else relative))
            decision = spec.check_file(name).include
            if decision is not None:
                return decision
        return False


def _walk(directory: Path, gitignore: bool, found: Discovery) -> Iterator[Path]:
    matcher = GitignoreMatcher()
    if gitignore:
        # The .gitignore files above `directory` apply too, and may ignore it entirely;
        # `.git/info/exclude` of the repository counts below all of them.
        ancestors = _repository_ancestors(directory)
        root = ancestors[-1] if ancestors else directory.absolute()
        if (root / ".git").is_dir():
            matcher = matcher.extended(root, root / ".git" / "info" / "exclude")
        levels = [*reversed(ancestors), directory.absolute()]
        for parent, child in itertools.pairwise(levels):
            matcher = matcher.extended(parent)
            if matcher.ignored(child, is_dir=True):
                return
    yield from _walk_dir(directory, matcher, gitignore, found)


def _walk_dir(
    directory: Path, matcher: GitignoreMatcher, gitignore: bool, found: Discovery
) -> Iterator[Path]:
    """Regular files below `directory`; symlinked directories are not entered (no loops),
    a symlinked file is taken. What cannot be looked at is noted in `found`."""
    if gitignore:
        matcher = matcher.extended(directory)
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError as err:
        found.unusable(directory, err)
        return
    for entry in entries:
        path = Path(entry.path)
        is_dir = entry.is_dir(follow_symlinks=False)
        if gitignore and matcher.ignored(path, is_dir=is_dir):
            continue
        if is_dir:
            if entry.name not in ALWAYS_SKIPPED:
                yield from _walk_dir(path, matcher, gitignore, found)
            continue
        try:
            is_file = entry.is_file()
        except OSError as err:  # a symlink loop
            if path.suffix in PYTHON_SUFFIXES:
                found.unusable(path, err)
            continue
        if is_file:
            yield path


def _repository_ancestors(directory: Path) -> list[Path]:
    """Strict ancestors of `directory` up to the one holding `.git` (their `.gitignore`
    files apply too); none when no ancestor looks like a repository root."""
    found: list[Path] = []
    current = directory.absolute()
    for parent in current.parents:
        found.append(parent)
        if (parent / ".git").exists():
            return found
    return []


# --- writing -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Write:
    """New bytes for a file of the run, the bytes it held when it was read, and its stamp
    then (None: the bytes alone say whether it changed)."""

    path: Path
    new: bytes
    expected: bytes
    stamp: FileStamp | None = None


@dataclass
class _Prepared:
    write: Write
    target: Path  # the file itself: a symlink's target, never the link
    temporary: Path | None  # None: written in place (hard links, or an owner to keep)
    mode: int
    kept: Kept | None = None  # what the file carries besides its bytes, for in place


def write_all(writes: Sequence[Write]) -> dict[Path, str]:
    """Write every file, or none: {} when all were written, else why each was not.

    One staging step: every new text goes to a temporary file next to its target, with
    the target's permissions (setuid and setgid bits included), owner and group where
    allowed, and extended attributes (POSIX ACLs are some) where the platform has them
    (`file_metadata`). Only when all are staged are they renamed over their targets, each
    right after checking, through the one reader, that the target still holds the bytes
    and the stamp it had when it was read: a file saved meanwhile (an editor, a formatter)
    stops the run, and the files already renamed get their old bytes back. A file with
    several hard links, or whose owner or attributes cannot be put on a new file, is
    overwritten in place through its own inode instead (after the same check), which
    keeps the links, owner and attributes. A symlink is never replaced: its target is
    written.
    """
    prepared: list[_Prepared] = []
    try:
        try:
            for write in writes:
                prepared.append(_prepare(write))
        except (OSError, InputError) as err:
            return _all_failed(writes, writes[len(prepared)].path, _reason(err))
        # Ctrl-C or SIGTERM waits for the renames: cut halfway, the run would have written
        # some of its files and not others.
        with interrupts_deferred():
            return _commit_all(writes, prepared)
    finally:  # what was not renamed into place, interrupted or not (no-op for the rest)
        for item in prepared:
            _discard(item)


def _commit_all(writes: Sequence[Write], prepared: list[_Prepared]) -> dict[Path, str]:
    done: list[_Prepared] = []
    for item in prepared:
        try:
            _commit(item, item.write.new, verify=True)
        except OSError as err:
            for rest in prepared[len(done) + 1 :]:
                _discard(rest)
            _discard(item)
            errors = _all_failed(writes, item.write.path, _reason(err))
            for restored in reversed(done):
                try:
                    _commit(_prepare_restore(restored), restored.write.expected, verify=True)
                except (OSError, InputError) as undo:
                    errors[restored.write.path] = (
                        f"written, but {shown(item.write.path)} could not be, and restoring "
                        f"this file failed too ({_reason(undo)}): it holds the migrated text"
                    )
            return errors
        done.append(item)
    return {}


def write_atomically(path: Path, new: bytes, expected: bytes) -> None:
    """Write one file as `write_all` does; raise the OSError that stopped it
    (FileChangedError when the file was edited meanwhile), leaving the file as it was."""
    try:
        item = _prepare(Write(path, new, expected))
    except InputError as err:
        raise FileChangedError(f"{path}: {err}") from None
    try:
        _commit(item, new, verify=True)
    except OSError:
        _discard(item)
        raise


def _reason(err: OSError | InputError) -> str:
    if isinstance(err, (FileChangedError, InputError)):
        return shown(err)
    where = f" ({shown(err.filename)})" if err.filename else ""
    return f"{err.strerror or err}{where}"


def _all_failed(writes: Sequence[Write], failed: Path, reason: str) -> dict[Path, str]:
    errors = {
        w.path: f"not written: {shown(failed)} could not be written, and a run writes all "
        "its files or none"
        for w in writes
    }
    errors[failed] = f"not written: {reason}"
    return errors


def _unchanged(write: Write, target: Path, *, moved: bool = False) -> None:
    """Raise FileChangedError unless `target` holds what `write` expects, read through
    the one reader (a file swapped for a FIFO or a link to /dev/zero is a change, found
    without waiting or filling memory: at most one byte more than expected is read).
    `moved`: the file was just renamed, which changes its ctime and nothing else."""
    try:
        now = read_file(target, limit=len(write.expected))
    except InputError as err:  # grown past what was read, or no longer a regular file
        detail = "it grew" if str(err).startswith("larger than") else str(err)
        raise FileChangedError(
            f"{shown(write.path)} changed on disk while it was being migrated ({detail})"
        ) from None
    stamp = write.stamp
    if stamp is not None and moved:
        stamp = replace(stamp, ctime_ns=now.stamp.ctime_ns)
    if now.data != write.expected or (stamp is not None and now.stamp != stamp):
        raise FileChangedError(f"{shown(write.path)} changed on disk while it was being migrated")


def _prepare(write: Write) -> _Prepared:
    target = Path(os.path.realpath(write.path))
    _unchanged(write, target)
    status = target.stat()
    mode = stat.S_IMODE(status.st_mode)
    if status.st_nlink > 1:
        return _Prepared(write, target, None, mode, kept_by(target))
    # A short name: the target's own name may be near NAME_MAX already.
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=".acp-", suffix=".tmp")
    temporary = Path(name)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(write.new)
            stream.flush()
            os.fsync(stream.fileno())
        kept = kept_by(target)
        if not _carry_over(status, temporary, kept):  # not allowed here: keep the inode
            temporary.unlink()
            return _Prepared(write, target, None, mode, kept)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return _Prepared(write, target, temporary, mode, kept)


def _carry_over(status: os.stat_result, temporary: Path, kept: Kept) -> bool:
    """Give `temporary` the owner, group, mode and extended attributes of the file of
    `status`; False when any of them cannot be (the file is then written in place)."""
    mine = temporary.stat()
    if (mine.st_uid, mine.st_gid) != (status.st_uid, status.st_gid):
        try:  # before chmod: changing the owner clears the setuid and setgid bits
            os.chown(temporary, status.st_uid, status.st_gid)
        except (PermissionError, AttributeError):
            return False
    os.chmod(temporary, stat.S_IMODE(status.st_mode))
    if not apply_kept(temporary, kept):
        return False
    # The kernel drops a setgid bit silently when the group is not one of ours.
    return stat.S_IMODE(temporary.stat().st_mode) == stat.S_IMODE(status.st_mode)


def _prepare_restore(item: _Prepared) -> _Prepared:
    """How to put the old bytes back into a file `_commit` has written."""
    if item.temporary is None:
        return _Prepared(
            Write(item.write.path, item.write.expected, item.write.new),
            item.target,
            None,
            item.mode,
            item.kept,
        )
    restore = Write(item.write.path, item.write.expected, item.write.new)
    return _prepare(restore)


def _commit(item: _Prepared, data: bytes, *, verify: bool) -> None:
    """Put `data` in place: rename the staged file over the target, or overwrite the
    target in place; with `verify`, only if the target is still as it was read.

    The check and the rename cannot be one step; an edit saved between them would be
    lost. Where the system can swap two names atomically (Linux `renameat2` with
    RENAME_EXCHANGE), the file swapped out is checked again after the swap and, if it
    changed in between, swapped back: the edit stands and the run fails."""
    temporary = item.temporary
    if temporary is None:
        _write_in_place(item, data, verify=verify)
        return
    if not verify:
        os.replace(temporary, item.target)
        return
    _unchanged(item.write, item.target)
    if not exchange(temporary, item.target):
        os.replace(temporary, item.target)  # no atomic swap here: the check above stands
        return
    try:  # `temporary` now names the file that was the target
        _unchanged(item.write, temporary, moved=True)
    except FileChangedError:
        exchange(temporary, item.target)  # the edited file back in its place
        raise
    temporary.unlink()


def _write_in_place(item: _Prepared, data: bytes, *, verify: bool) -> None:
    """Overwrite the file through its own inode (hard links and owner kept), leaving its
    old bytes or the new ones: the blocks the new text needs are reserved first, so a
    full disk stops the write before the first byte of the file changes, and a write
    that still fails puts the old bytes back. Mode bits and attributes that the kernel
    clears on a write (setuid, setgid, file capabilities) are put back after it."""
    target = item.target
    if verify:
        _unchanged(item.write, target)
    with target.open("r+b") as stream:
        fd = stream.fileno()
        old_size = os.fstat(fd).st_size
        old = os.pread(fd, old_size, 0) if old_size else b""
        if verify and old != item.write.expected:  # written between the check and open
            raise FileChangedError(
                f"{shown(item.write.path)} changed on disk while it was being migrated"
            )
        _reserve(target, fd, len(data), old_size)
        try:
            _overwrite(stream, data)
        except OSError:
            with contextlib.suppress(OSError):  # the reserved blocks hold the old bytes too
                _overwrite(stream, old)
            raise
    if stat.S_IMODE(target.stat().st_mode) != item.mode:
        with contextlib.suppress(OSError):
            os.chmod(target, item.mode)
    if item.kept is not None:
        apply_kept(target, item.kept, remove_others=False)


def _overwrite(stream: BinaryIO, data: bytes) -> None:
    stream.seek(0)
    stream.write(data)
    stream.truncate()
    stream.flush()
    os.fsync(stream.fileno())


def _reserve(target: Path, fd: int, size: int, old_size: int) -> None:
    """Make sure the disk holds `size` bytes for the file before it is touched (OSError,
    ENOSPC most likely, if not). Without fallocate (some file systems, not POSIX
    everywhere), a scratch file of the extra size in the same directory proves the room."""
    if size <= old_size:
        return  # its own blocks hold the new text
    try:
        os.posix_fallocate(fd, 0, size)
        return
    except OSError as err:
        os.ftruncate(fd, old_size)  # a failed allocation must not leave the file longer
        if err.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
            raise
    except AttributeError:  # no posix_fallocate on this platform
        pass
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=".acp-", suffix=".room")
    try:
        with os.fdopen(handle, "wb") as scratch:
            scratch.write(bytes(size - old_size))
            scratch.flush()
            os.fsync(scratch.fileno())
    finally:
        os.unlink(name)


def _discard(item: _Prepared) -> None:
    if item.temporary is not None:
        item.temporary.unlink(missing_ok=True)
