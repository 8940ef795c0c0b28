"""Old-shape bindings that record where a program touches a chunk's participant IDs.

The stand-in `SessionMessageChunk` of `old_bindings` is subclassed so that building one
with `sender_session_id` / `recipient_session_id` (constructor, `model_construct`,
`model_copy(update=...)`) and reading those attributes or their builders (also through
`getattr`) records the (file, line) of the program code that did it: the lines where an
occurrence of a removed name is, at run time, about a chunk. The accounting must never
call such an occurrence unrelated.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from . import harness
from .old_bindings import old_module

IDENTITY = frozenset(
    {
        "sender_session_id",
        "recipient_session_id",
        "senderSessionId",
        "recipientSessionId",
        "with_sender_session_id",
        "with_recipient_session_id",
    }
)


class Touches:
    """(file name, line) pairs of program code that touched a chunk's IDs."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self.lines: set[tuple[str, int]] = set()

    def touch(self, depth: int = 2) -> None:
        frame = sys._getframe(depth)
        if frame.f_code.co_filename.startswith(self.root):
            relative = Path(frame.f_code.co_filename).relative_to(self.root).as_posix()
            self.lines.add((relative, frame.f_lineno))


def _traced(module: types.ModuleType, touches: Touches) -> types.ModuleType:
    base: Any = module.SessionMessageChunk

    class SessionMessageChunk(base):  # type: ignore[misc, valid-type]
        def __init__(self, **data: Any) -> None:
            if IDENTITY & set(data):
                touches.touch()
            super().__init__(**data)

        @classmethod
        def model_construct(cls, _fields_set: Any = None, **values: Any) -> Any:
            if IDENTITY & set(values):
                touches.touch()
            return super().model_construct(_fields_set, **values)

        def model_copy(self, *, update: Any = None, deep: bool = False) -> Any:
            if update and IDENTITY & set(update):
                touches.touch()
            return super().model_copy(update=update, deep=deep)

        def __getattribute__(self, name: str) -> Any:
            if name in IDENTITY:
                touches.touch()
            return super().__getattribute__(name)

    SessionMessageChunk.__qualname__ = SessionMessageChunk.__name__ = "SessionMessageChunk"
    module.SessionMessageChunk = SessionMessageChunk  # type: ignore[attr-defined]
    return module


@contextmanager
def tracing(root: Path) -> Iterator[Touches]:
    """While active, the oracle's old-program runs under `root` use traced bindings."""
    touches = Touches(root)

    def traced_old_module(version: str) -> types.ModuleType:
        return _traced(old_module(version), touches)

    with mock.patch.object(harness, "old_module", traced_old_module):
        yield touches
