"""Use the unstable `acp_schema.v1` bindings on an `agent-client-protocol` (`acp`) connection.

Install with `pip install 'acp-schema[acp]'`; docs/acp-sdk.md shows a whole agent and client.

- `send(conn, message, session_id=...)`: send any v1 session update or agent-side
  notification through an acp `AgentSideConnection` as its exact wire value, kinds acp
  does not know and unknown keys included;
- `UpdateReceiver(on_update, store=...).attach(conn, process=...)`: on an acp
  `ClientSideConnection`, every `session/update` acp's transport parses, exactly once
  and in wire order, decoded
  by the bindings (fast path first) or, where they refuse it, as an `UndecodableUpdate`;
  optionally applied to a `TranscriptStore`; what acp's own models read still reaches the
  Client's `session_update`; with the agent's process, a request that fails because it
  exited raises `AgentExitedError` with the exit status;
- `to_acp` / `from_acp`: the same wire value as the other package's model.

Importing this module checks the installed acp version (`SUPPORTED_ACP`) and raises
`acp_schema.UnsupportedAcpError` (importable without acp) when it cannot run with it.
"""

from acp_schema import UnsupportedAcpError

from ._support import ACP_VERSION
from ._support import SUPPORTED_TEXT as SUPPORTED_ACP
from .convert import LossyConversionError, NoCounterpartError, from_acp, shared_definitions, to_acp
from .exits import AgentExitedError
from .receive import Notification, OnUpdate, ReceivedUpdate, UpdateReceiver
from .send import ACP_UPDATE_KINDS, send
from .undecodable import UndecodableUpdate

__all__ = [
    "ACP_UPDATE_KINDS",
    "ACP_VERSION",
    "SUPPORTED_ACP",
    "AgentExitedError",
    "LossyConversionError",
    "NoCounterpartError",
    "Notification",
    "OnUpdate",
    "ReceivedUpdate",
    "UndecodableUpdate",
    "UnsupportedAcpError",
    "UpdateReceiver",
    "from_acp",
    "send",
    "shared_definitions",
    "to_acp",
]
