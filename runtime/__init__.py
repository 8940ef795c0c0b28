"""Typed pydantic bindings for the Agent Client Protocol unstable schema (v1 and v2).

`acp_schema.v1` and `acp_schema.v2` are the generated bindings; this package root holds the
hand-written runtime they import (`_runtime`, `_jsonrpc`), the session-message transcripts
(`acp_schema.transcripts`) and the command line (`acp_schema.cli`).

What a user needs to tell an omitted field from a given one:

- `MISSING`: the value of a field the model did not receive (`message.content is MISSING`;
  pydantic's sentinel, which type checkers narrow on);
- `UNSET`: the same for a fast-path Struct (`acp_schema.v2.fast`; msgspec's sentinel).

The JSON-RPC names a user of `acp_schema.vN.methods.METHODS` may annotate with: `Decoded`
(what `METHODS.decode` returns), `Method`, `MethodTable`, `UnknownMethodError`.

All are loaded on first use, so `import acp_schema.v2` still imports neither pydantic nor
msgspec until a model or Struct is used.

`UnsupportedAcpError` is what importing `acp_schema.acp_bridge` raises when the installed
`agent-client-protocol` is missing, outside the supported range, or cannot be imported. It
lives here, where it imports without acp, so that the import can be guarded:
`from acp_schema import UnsupportedAcpError` (it is an `ImportError` too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from msgspec import UNSET as UNSET
    from pydantic import MISSING as MISSING

    from ._jsonrpc import Decoded as Decoded
    from ._jsonrpc import Method as Method
    from ._jsonrpc import MethodTable as MethodTable
    from ._jsonrpc import UnknownMethodError as UnknownMethodError

__all__ = [
    "MISSING",
    "UNSET",
    "Decoded",
    "Method",
    "MethodTable",
    "UnknownMethodError",
    "UnsupportedAcpError",
]
_JSONRPC = frozenset({"Decoded", "Method", "MethodTable", "UnknownMethodError"})


class UnsupportedAcpError(ImportError):
    """`acp_schema.acp_bridge` cannot run with the installed `agent-client-protocol`: it is
    not installed, its version is outside the range the bridge supports, or it fails to
    import. The message says which, in one line."""


def __getattr__(name: str) -> Any:
    if name == "MISSING":
        from pydantic import MISSING

        return MISSING
    if name == "UNSET":
        from msgspec import UNSET

        return UNSET
    if name in _JSONRPC:
        from . import _jsonrpc

        return getattr(_jsonrpc, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
