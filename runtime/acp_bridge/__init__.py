"""Use the unstable `acp_schema.v1` bindings on an `agent-client-protocol` (`acp`) connection.

Install with `pip install 'acp-schema[acp]'`; docs/acp-sdk.md shows a whole agent and client.

- `send(conn, message, session_id=...)`: send any v1 session update or agent-side
  notification through an acp `AgentSideConnection`, kinds acp does not know included;
- `UpdateReceiver(...).attach(conn)`: on an acp `ClientSideConnection`, every
  `session/update` decoded by the bindings (fast path first), optionally applied to a
  `TranscriptStore`; kinds acp knows still reach the Client's `session_update`;
- `to_acp` / `from_acp`: the same wire value as the other package's model.

Importing this module checks the installed acp version (`SUPPORTED_ACP`).
"""

from ._support import ACP_VERSION, UnsupportedAcpError
from ._support import SUPPORTED_TEXT as SUPPORTED_ACP
from .convert import LossyConversionError, NoCounterpartError, from_acp, shared_definitions, to_acp
from .receive import UpdateReceiver
from .send import ACP_UPDATE_KINDS, send

__all__ = [
    "ACP_UPDATE_KINDS",
    "ACP_VERSION",
    "SUPPORTED_ACP",
    "LossyConversionError",
    "NoCounterpartError",
    "UnsupportedAcpError",
    "UpdateReceiver",
    "from_acp",
    "send",
    "shared_definitions",
    "to_acp",
]
