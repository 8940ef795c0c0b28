"""`AgentExitedError`: a request on a client connection failed because the agent process
behind it ended, with how it ended.

acp closes a connection when the agent's output ends, and every request still waiting,
and every later one, fails with `ConnectionError("Connection closed")`; acp does not know
the process. Given the process (`UpdateReceiver.attach(conn, process=...)`), the bridge
turns that error into this one once the process has exited, naming its exit status.
"""

from __future__ import annotations

import asyncio
import signal
from typing import Any, Protocol

from ._support import Request, wrap_requests

__all__ = ["AgentExitedError", "report_exits"]

# How long a failed request waits for the process to be reaped after the connection closed
# (the end of its output usually comes just before its exit status).
EXIT_WAIT_SECONDS = 2.0


class AgentProcess(Protocol):
    """What the bridge reads of the agent process (an `asyncio.subprocess.Process`)."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    async def wait(self) -> int: ...


class AgentExitedError(ConnectionError):
    """A request failed because the agent process exited; `returncode` is its exit status
    (negative: the signal that ended it), `pid` its process ID."""

    def __init__(self, method: str, pid: int, returncode: int) -> None:
        self.method = method
        self.pid = pid
        self.returncode = returncode
        super().__init__(f"{method}: the agent process {pid} {how_it_ended(returncode)}")


def how_it_ended(returncode: int) -> str:
    """`exited with status 3`, `was killed by signal 9 (SIGKILL)`."""
    if returncode >= 0:
        return f"exited with status {returncode}"
    number = -returncode
    try:
        name = f" ({signal.Signals(number).name})"
    except ValueError:
        name = ""
    return f"was killed by signal {number}{name}"


def report_exits(client_connection: Any, process: AgentProcess) -> None:
    """Make requests and notifications sent on `client_connection` raise `AgentExitedError`
    (a `ConnectionError`) when they fail because `process` exited."""

    def wrap(send: Request) -> Request:
        async def sending(method: str, params: Any = None) -> Any:
            try:
                return await send(method, params)
            except ConnectionError as error:
                returncode = await _exit_status(process)
                if returncode is None:
                    raise  # the process lives on: the connection closed for another reason
                raise AgentExitedError(method, process.pid, returncode) from error

        return sending

    wrap_requests(client_connection, wrap)


async def _exit_status(process: AgentProcess) -> int | None:
    """The process's exit status, waiting a little for it; None if it is still running."""
    if process.returncode is not None:
        return process.returncode
    try:
        return await asyncio.wait_for(process.wait(), EXIT_WAIT_SECONDS)
    except asyncio.TimeoutError:
        return None
