"""The one place that knows which `agent-client-protocol` it runs with, and its internals.

acp 0.12 has no public way to send a `session/update` its own models refuse, to see a
`session/update` before its router validates it, or to say why a request failed when the
agent process behind the connection died. Each needs one private attribute of a connection
object; they are reached here and nowhere else, and only for the acp versions this module
was checked against (`SUPPORTED`), so a new acp fails at import with a message instead of
misbehaving at run time. What acp offers publicly (its models, `serialize_params`) is used
as it is, but named here too, so that a new acp is read in one place.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib import metadata
from typing import TYPE_CHECKING, Any

from acp_schema import UnsupportedAcpError

if TYPE_CHECKING:
    from packaging.version import Version
    from pydantic import BaseModel

DISTRIBUTION = "agent-client-protocol"
# The versions whose internals below were read and tested (tests/test_acp_*.py; `nox -s
# tests` runs them against each release in the range, see noxfile.py). PEP 440: `<0.13`
# leaves out 0.13's pre-releases too.
SUPPORTED_TEXT = ">=0.12.0,<0.13"
_INSTALL = "pip install 'acp-schema[acp]'"

Handler = Callable[[str, Any, bool], Awaitable[Any]]
Request = Callable[[str, Any], Awaitable[Any]]


def check_version() -> Version:
    """The installed acp version, or `UnsupportedAcpError` if it is outside `SUPPORTED`."""
    try:
        from packaging.specifiers import SpecifierSet
        from packaging.version import InvalidVersion, Version
    except ImportError:
        raise UnsupportedAcpError(
            f"acp_schema.acp_bridge needs the packaging library to check the version of "
            f"{DISTRIBUTION}: {_INSTALL}"
        ) from None
    try:
        text = metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise UnsupportedAcpError(
            f"acp_schema.acp_bridge needs {DISTRIBUTION} {SUPPORTED_TEXT}: {_INSTALL}"
        ) from None
    try:
        version = Version(text)
    except InvalidVersion:
        raise UnsupportedAcpError(f"cannot read the version of {DISTRIBUTION}: {text!r}") from None
    if version not in SpecifierSet(SUPPORTED_TEXT, prereleases=True):  # `SUPPORTED`
        raise UnsupportedAcpError(
            f"acp_schema.acp_bridge supports {DISTRIBUTION} {SUPPORTED_TEXT}, "
            f"found {text}: install a supported version or an acp-schema that supports it"
        )
    return version


def _one_line(error: BaseException) -> str:
    """The error's type (unless a plain ImportError, whose text says enough) and its text,
    on one line."""
    text = " ".join(str(error).split())
    if type(error) is ImportError:
        return text
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


ACP_VERSION = check_version()

from packaging.specifiers import SpecifierSet  # noqa: E402 - importable: the check used it

SUPPORTED = SpecifierSet(SUPPORTED_TEXT, prereleases=True)

try:  # the version is right, but the package may still be broken or half installed
    from acp import schema as acp_models
    from acp.core import AgentSideConnection, ClientSideConnection
    from acp.utils import serialize_params
except Exception as error:  # whatever acp or a dependency raises: a SyntaxError, ...
    raise UnsupportedAcpError(
        f"{DISTRIBUTION} {ACP_VERSION} is installed but cannot be imported: {_one_line(error)}"
    ) from error

# --- acp's public API, as the bridge reads it ------------------------------------------------

# acp's own `session/update` params: what its router validates each update with.
AcpSessionNotification = acp_models.SessionNotification


def acp_writes(model: BaseModel) -> Any:
    """The JSON value acp writes for one of its models when it sends it (no `null`s, no
    values equal to their defaults): acp's own `serialize_params`."""
    return serialize_params(model)


# --- acp's internals, on one connection at a time ------------------------------------------


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
    connection. Only that connection changes; acp's classes stay as they are.

    The router validates `session/update` params with `AcpSessionNotification.model_validate`
    (acp 0.12's `MessageRouter`), which returns an instance of that class as it is: a
    wrapper that has validated the params already may pass the instance on instead of
    the dict, and the Client's `session_update` gets the very objects acp would have made.
    """
    inner = _connection(client_connection, ClientSideConnection)
    handler = getattr(inner, "_handler", None)
    if not callable(handler):
        raise TypeError(f"acp {ACP_VERSION}: the connection has no method handler to wrap")
    inner._handler = wrap(handler)


def wrap_requests(client_connection: Any, wrap: Callable[[Request], Request]) -> None:
    """Put `wrap(send)` in place of the inner connection's `send_request` and
    `send_notification`, through which every request and notification of one client
    connection goes (`prompt`, `cancel`, ...); they raise `ConnectionError` once the
    connection is closed."""
    inner = _connection(client_connection, ClientSideConnection)
    for name in ("send_request", "send_notification"):
        setattr(inner, name, wrap(getattr(inner, name)))
