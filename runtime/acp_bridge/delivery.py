"""`InOrder`: calls the application's `on_update` once per update, in the order the updates
were received, each call after the previous one has finished.

acp handles every notification in a task of its own; tasks start in the order the lines
arrived, so whatever a handler does before its first `await` happens in wire order, and
nothing after it does. `InOrder.deliver` is called there. A plain function is called at
once, unless a coroutine from an earlier update is still running; a coroutine, or a call
that must wait its turn, runs in a task that starts when the one before it has finished
(or failed: an error of one call does not hold the others back).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["InOrder"]

Callback = Callable[[Any, Any], "Awaitable[None] | None"]


class InOrder:
    """One connection's calls of one callback, in the order `deliver` is called."""

    __slots__ = ("_last", "callback")

    def __init__(self, callback: Callback) -> None:
        self.callback = callback
        self._last: asyncio.Future[None] | None = None  # the latest call still running

    def deliver(self, value: Any, entry: Any) -> asyncio.Future[None] | None:
        """Call `callback(value, entry)` in its turn: None when the call has returned
        already (its exception, if any, raised here), else the future of the call, which
        the caller awaits (cancelling it cancels the call)."""
        last = self._last
        if last is None or last.done():
            self._last = None
            result = self.callback(value, entry)
            if not inspect.isawaitable(result):
                return None
            running: asyncio.Future[None] = asyncio.ensure_future(result)
        else:
            running = asyncio.ensure_future(self._after(last, value, entry))
        self._last = running
        return running

    async def _after(self, last: asyncio.Future[None], value: Any, entry: Any) -> None:
        await asyncio.wait((last,))  # its end, whatever it was (its caller reports errors)
        result = self.callback(value, entry)
        if inspect.isawaitable(result):
            await result
