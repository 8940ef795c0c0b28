"""Which files a migration run looks at, and how a migrated file is written.

Directories are listed with `git ls-files -co --exclude-standard` when they are inside a
git work tree and git is installed, so `.gitignore` (and `.git/info/exclude`, and the
global excludes file) is honoured exactly as git does. Without git, `.gitignore` files
are read with a simple matcher (`fnmatch` per pattern, see `GitignoreMatcher`). Files
named on the command line are always taken, ignored or not; `--exclude` applies to all.
"""

from __future__ import annotations

import fnmatch
import itertools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

# Never descended into, git or not.
ALWAYS_SKIPPED = frozenset({".git", ".hg", ".svn", "__pycache__"})
PYTHON_SUFFIXES = (".py",)


class FileChangedError(OSError):
    """The file on disk is not the one that was migrated (edited meanwhile)."""


# --- discovery ---------------------------------------------------------------------------


@dataclass
class Discovery:
    files: list[Path] = field(default_factory=list)
    missing: list[Path] = field(default_factory=list)
    used_git: bool = False


def discover(
    paths: Sequence[Path], *, excludes: Sequence[str] = (), gitignore: bool = True
) -> Discovery:
    """The Python files under `paths`, sorted, without duplicates."""
    found = Discovery()
    seen: set[Path] = set()

    def add(path: Path, root: Path) -> None:
        resolved = path.resolve()
        if resolved in seen or _excluded(path, root, excludes):
            return
        seen.add(resolved)
        found.files.append(path)

    for path in paths:
        if path.is_file():
            add(path, path.parent)
        elif path.is_dir():
            listed = _git_files(path) if gitignore else None
            found.used_git = found.used_git or listed is not None
            for file in listed if listed is not None else _walk(path, gitignore):
                if file.suffix in PYTHON_SUFFIXES and not _in_skipped_dir(file, path):
                    add(file, path)
        else:
            found.missing.append(path)
    found.files.sort()
    return found


def _excluded(path: Path, root: Path, excludes: Sequence[str]) -> bool:
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


@dataclass(frozen=True)
class _Pattern:
    base: Path
    glob: str
    negated: bool
    directory_only: bool
    anchored: bool


class GitignoreMatcher:
    """A simple reading of `.gitignore` files, for directories git cannot list.

    Supported: comments, blank lines, `!` negation (last match wins), a trailing `/`
    for directories only, patterns with a `/` anchored to the `.gitignore`'s directory,
    patterns without one matching a name at any depth. `*`, `?` and `[...]` are
    fnmatch's, so `*` also crosses `/` and `**` behaves like `*`. Not supported:
    escapes (`\\#`, `\\!`, trailing `\\ `), `.git/info/exclude` and global excludes.
    """

    def __init__(self, patterns: Iterable[_Pattern] = ()) -> None:
        self.patterns = list(patterns)

    def extended(self, directory: Path) -> GitignoreMatcher:
        file = directory / ".gitignore"
        if not file.is_file():
            return self
        added = list(self.patterns)
        for raw in file.read_text(encoding="utf-8", errors="replace").splitlines():
            line = raw.rstrip()
            if not line or line.startswith("#"):
                continue
            negated = line.startswith("!")
            line = line[1:] if negated else line
            directory_only = line.endswith("/")
            line = line.rstrip("/")
            if not line:
                continue
            anchored = "/" in line
            base = directory.absolute()
            added.append(_Pattern(base, line.lstrip("/"), negated, directory_only, anchored))
        return GitignoreMatcher(added)

    def ignored(self, path: Path, *, is_dir: bool) -> bool:
        result = False
        for pattern in self.patterns:
            if pattern.directory_only and not is_dir:
                continue
            try:
                relative = path.absolute().relative_to(pattern.base).as_posix()
            except ValueError:
                continue
            subject = relative if pattern.anchored else path.name
            if fnmatch.fnmatchcase(subject, pattern.glob):
                result = not pattern.negated
        return result


def _walk(directory: Path, gitignore: bool) -> Iterator[Path]:
    matcher = GitignoreMatcher()
    if gitignore:
        # The .gitignore files above `directory` apply too, and may ignore it entirely.
        levels = [*reversed(_repository_ancestors(directory)), directory.absolute()]
        for parent, child in itertools.pairwise(levels):
            matcher = matcher.extended(parent)
            if matcher.ignored(child, is_dir=True):
                return
    yield from _walk_dir(directory, matcher, gitignore)


def _walk_dir(directory: Path, matcher: GitignoreMatcher, gitignore: bool) -> Iterator[Path]:
    if gitignore:
        matcher = matcher.extended(directory)
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        path = Path(entry.path)
        is_dir = entry.is_dir(follow_symlinks=False)
        if gitignore and matcher.ignored(path, is_dir=is_dir):
            continue
        if is_dir:
            if entry.name not in ALWAYS_SKIPPED:
                yield from _walk_dir(path, matcher, gitignore)
        elif entry.is_file():
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


def write_atomically(path: Path, new: bytes, expected: bytes) -> None:
    """Replace `path` by `new` in one step (a temp file in the same directory, then
    `os.replace`), keeping its permissions. Refuses if the file no longer holds
    `expected`: someone edited it while the migration ran."""
    if path.read_bytes() != expected:
        raise FileChangedError(f"{path} changed on disk while it was being migrated")
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(new)
            stream.flush()
            os.fsync(stream.fileno())
        shutil.copymode(path, temporary)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def module_name(path: Path) -> tuple[str | None, str | None]:
    """(module, package) of a file, from the `__init__.py` files of its directories."""
    path = path.resolve()
    parts = [] if path.stem == "__init__" else [path.stem]
    directory = path.parent
    while (directory / "__init__.py").is_file():
        parts.insert(0, directory.name)
        if directory.parent == directory:
            break
        directory = directory.parent
    if not parts:
        return None, None
    name = ".".join(parts)
    package = name if path.stem == "__init__" else name.rpartition(".")[0]
    return name, package or None
