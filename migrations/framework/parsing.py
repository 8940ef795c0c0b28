"""Parsing one file for a codemod: code nested too deeply to parse safely is refused
before libcst tries, and a parse error is placed where CPython places it."""

from __future__ import annotations

import ast
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
        return cst.parse_module(data)
    except cst.ParserSyntaxError as err:
        raise ParseFailure(f"cannot parse: {_syntax_error(python_error, err)}") from None
    except (SyntaxError, UnicodeDecodeError, LookupError) as err:  # bad encoding cookie
        raise ParseFailure(f"cannot read: {err}") from None


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
    the code (syntax newer than this Python)."""
    if isinstance(python, SyntaxError) and python.lineno is not None:
        return f"{python.msg} ({_where(python)})"
    return f"{err.message} (line {err.editor_line}, column {err.editor_column})"
