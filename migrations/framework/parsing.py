"""Parsing one file for a codemod: code nested too deeply to parse safely is refused
before libcst tries, and a parse error is placed where CPython places it."""

from __future__ import annotations

import ast
import difflib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
    from libcst import ParserSyntaxError


class ParseFailure(Exception):
    """A file the codemod cannot parse; `str()` is the one-line report."""


# What CPython's own parser says when it gives up on nesting (its limits are well below
# the depth at which libcst's native parser overflows its stack and kills the process).
_NESTING_MESSAGES = ("too many nested parentheses", "too many statically nested blocks")


PythonError = SyntaxError | RecursionError | MemoryError


def parse(path: Path, data: bytes) -> cst.Module:
    """The module of `data`, or `ParseFailure` with the report to give."""
    import libcst as cst

    python_error = _python_syntax_error(path, data)
    problem = _too_deep(python_error)
    if problem is not None:
        raise ParseFailure(problem)
    try:
        module = cst.parse_module(data)
    except cst.ParserSyntaxError as err:
        raise ParseFailure(f"cannot parse: {_syntax_error(python_error, err)}") from None
    except (SyntaxError, UnicodeDecodeError, LookupError) as err:  # bad encoding cookie
        raise ParseFailure(f"cannot read: {err}") from None
    if isinstance(python_error, SyntaxError):
        # libcst takes it (syntax newer than this Python), but the run reads every module
        # with `ast` too (imports, classes, consumers): it would not see this one.
        version = ".".join(map(str, sys.version_info[:2]))
        raise ParseFailure(
            f"cannot parse: {python_error.msg} ({_where(python_error)}) for Python {version}, "
            "which runs the migration; run it with the Python the code is written for"
        )
    return module


def first_difference(before: bytes, after: bytes) -> int | None:
    """The first line (from 1) where `after` differs from `before`; None if equal."""
    if before == after:
        return None
    old, new = before.split(b"\n"), after.split(b"\n")
    for number, (a, b) in enumerate(zip(old, new, strict=False), start=1):
        if a != b:
            return number
    return min(len(old), len(new)) + 1


def _python_syntax_error(path: Path, data: bytes) -> PythonError | None:
    """What CPython's parser says about `data` (None: it parses). Asked once per file:
    before libcst (nesting it cannot survive) and for the position of a parse error."""
    try:
        compile(data, str(path), "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, RecursionError, MemoryError) as err:
        return err
    except ValueError:  # NUL bytes: libcst reports those itself
        return None
    return None


def _too_deep(err: PythonError | None) -> str | None:
    """A report for code nested too deeply to parse safely, before libcst tries."""
    if isinstance(err, RecursionError | MemoryError):
        return "cannot parse: nested too deeply for Python's parser, file left unchanged"
    if isinstance(err, SyntaxError) and any(m in (err.msg or "") for m in _NESTING_MESSAGES):
        return f"cannot parse: {err.msg} ({_where(err)}), file left unchanged"
    return None


def _where(err: SyntaxError) -> str:
    # SyntaxError.offset counts characters from 1; reports count columns from 0.
    column = max((err.offset or 1) - 1, 0)
    return f"line {err.lineno}, column {column}"


def _syntax_error(python: PythonError | None, err: ParserSyntaxError) -> str:
    """The parse error as CPython places it (libcst's native parser often reports the
    token after the error, a line too late); libcst's own message when CPython accepts
    the code."""
    if isinstance(python, SyntaxError) and python.lineno is not None:
        return f"{python.msg} ({_where(python)})"
    return f"{err.message} (line {err.editor_line}, column {err.editor_column})"


# --- what libcst cannot take as it is -------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """How a file's bytes were changed for libcst, so that they can be changed back.

    Three things valid Python may hold that libcst mishandles: line ends that are all bare
    CRs (it drops the last one), form feeds in a line's indentation (CPython starts
    counting the indentation again after one; libcst refuses the file, or drops the form
    feed), and indented comment lines at the end of the file (it drops all but the last).
    The parser gets `\\n` line ends, indentation without form feeds and those comments
    unindented; `restore` puts all back into the migrated text.
    """

    cr_only: bool = False
    # 0-based line number -> the bytes taken from the start of that line (up to and
    # including its last form feed, or a trailing comment's indentation)
    prefixes: tuple[tuple[int, bytes], ...] = ()


def for_parser(data: bytes) -> tuple[bytes, Layout]:
    """`data` as libcst takes it, and how it was changed."""
    cr_only = b"\r" in data and b"\n" not in data
    text = data.replace(b"\r", b"\n") if cr_only else data
    taken: dict[int, bytes] = {}
    lines = text.split(b"\n")
    if b"\f" in text:
        for number, line in enumerate(lines):
            indentation = line[: len(line) - len(line.lstrip(b" \t\f"))]
            cut = indentation.rfind(b"\f") + 1
            if cut:
                taken[number] = line[:cut]
                lines[number] = line[cut:]
    trailing = _trailing_comment_lines(lines)
    if trailing:
        unindented = [
            line.lstrip(b" \t") if number in trailing else line for number, line in enumerate(lines)
        ]
        # Only comments and blanks: not the end of a string whose last line looks so.
        if _same_code(b"\n".join(lines), b"\n".join(unindented)):
            for number in trailing:
                line = lines[number]
                cut = len(line) - len(unindented[number])
                taken[number] = taken.get(number, b"") + line[:cut]
            lines = unindented
    if not taken:
        return text, Layout(cr_only)
    return b"\n".join(lines), Layout(cr_only, tuple(sorted(taken.items())))


def _trailing_comment_lines(lines: list[bytes]) -> list[int]:
    """The indented lines after the file's last line of code (comments, blanks): libcst
    1.9 drops some of them (every indented comment at the end of a module but the last,
    a blank line before one). Their indentation means nothing to CPython, so the parser
    gets them unindented and `restore` indents them again."""
    found: list[int] = []
    for number in range(len(lines) - 1, -1, -1):
        stripped = lines[number].strip()
        if stripped and not stripped.startswith(b"#"):
            break
        if lines[number][:1] in (b" ", b"\t"):
            found.append(number)
    return found


def restore(new: bytes, parsed: bytes, layout: Layout) -> bytes | None:
    """The migrated text `new` (of the parsed text `parsed`) with the layout of the
    original file; None when the form feeds cannot be put back for sure, and the file
    must be left as it is.

    A form feed goes back at the start of the line it was taken from, or, where the
    migration rewrote that line, of the first line that replaced it. Indentation before a
    form feed does not count for CPython, so either place means the same code; that is
    checked (the syntax trees with and without the form feeds must be equal)."""
    if layout.prefixes:
        old_lines = parsed.split(b"\n")
        new_lines = new.split(b"\n")
        matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
        where: dict[int, int] = {}
        for _, i1, i2, j1, j2 in matcher.get_opcodes():
            for k in range(i2 - i1):  # equal lines map one to one; others to the first
                where[i1 + k] = j1 + min(k, max(j2 - j1 - 1, 0)) if j2 > j1 else j1
        for number, prefix in sorted(layout.prefixes, reverse=True):
            line = where.get(number)
            if line is None or line >= len(new_lines):
                return None
            new_lines[line] = prefix + new_lines[line]
        restored = b"\n".join(new_lines)
        if not _same_code(new, restored):
            return None
        new = restored
    return new.replace(b"\n", b"\r") if layout.cr_only else new


def _same_code(plain: bytes, with_form_feeds: bytes) -> bool:
    try:
        trees = [ast.dump(ast.parse(text)) for text in (plain, with_form_feeds)]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return trees[0] == trees[1]
