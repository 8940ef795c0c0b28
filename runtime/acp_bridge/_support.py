"""The one place that knows which `agent-client-protocol` it runs with, and its internals.

acp 0.12 has no public way to send a `session/update` its own models refuse, nor to see a
`session/update` before its router validates it. Both need one private attribute of a
connection object; they are reached here and nowhere else, and only for the acp versions
this module was checked against (`SUPPORTED`), so a new acp fails at import with a message
instead of misbehaving at run time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib import metadata
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

DISTRIBUTION = "agent-client-protocol"
# The versions whose internals below were read and tested (tests/test_acp_*.py; `nox -s
# tests` runs them against each release in the range, see noxfile.py). PEP 440: `<0.13`
# leaves out 0.13's pre-releases too.
SUPPORTED_TEXT = ">=0.12.0,<0.13"
SUPPORTED = SpecifierSet(SUPPORTED_TEXT, prereleases=True)

Handler = Callable[[str, Any, bool], Awaitable[Any]]


class UnsupportedAcpError(ImportError):
    """The installed `agent-client-protocol` is outside the range this adapter supports."""


def check_version() -> Version:
    """The installed acp version, or `UnsupportedAcpError` if it is outside `SUPPORTED`."""
    try:
        text = metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise UnsupportedAcpError(
            f"acp_schema.acp_bridge needs {DISTRIBUTION} {SUPPORTED_TEXT}: "
            "pip install 'acp-schema[acp]'"
        ) from None
    try:
        version = Version(text)
    except InvalidVersion:
        raise UnsupportedAcpError(f"cannot read the version of {DISTRIBUTION}: {text!r}") from None
    if version not in SUPPORTED:
        raise UnsupportedAcpError(
            f"acp_schema.acp_bridge supports {DISTRIBUTION} {SUPPORTED_TEXT}, "
            f"found {text}: install a supported version or an acp-schema that supports it"
        )
    return version


ACP_VERSION = check_version()

from acp.core import AgentSideConnection, ClientSideConnection  # noqa: E402 - after the check


def _connection(wrapper: Any, kind: type) -> Any:
    """The `acp.connection.Connection` inside an acp `AgentSideConnection` or
    `ClientSideConnection` (its private `_conn`)."""
    if not isinstance(wrapper, kind):
        raise TypeError(f"expected an acp {kind.__name__}, got {type(wrapper).__name__}")
    inner = getattr(wrapper, "_conn", None)
    if inner is None or not callable(getattr(inner, "send_notification", None)):
        raise TypeError(f"acp {ACP_VERSION}: {kind.__name__} has no inner connection")
    return inner


async def send_raw_notification(agent_connection: Any, method: str, params: Any) -> None:
    """Send a JSON-RPC notification as it is, bypassing acp's models (which would refuse
    a kind they do not know). Goes through the connection's own writer and observers."""
    await _connection(agent_connection, AgentSideConnection).send_notification(method, params)


def wrap_handler(client_connection: Any, wrap: Callable[[Handler], Handler]) -> None:
    """Put `wrap(handler)` in place of the method handler (acp's router) of one client
    connection. Only that connection changes; acp's classes stay as they are."""
    inner = _connection(client_connection, ClientSideConnection)
    handler = getattr(inner, "_handler", None)
    if not callable(handler):
        raise TypeError(f"acp {ACP_VERSION}: the connection has no method handler to wrap")
    inner._handler = wrap(handler)
