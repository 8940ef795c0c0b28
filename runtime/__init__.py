"""Typed pydantic bindings for the Agent Client Protocol unstable schema (v1 and v2).

`acp_schema.v1` and `acp_schema.v2` are the generated bindings; this package root holds the
hand-written runtime they import (`_runtime`, `_jsonrpc`), the session-message transcripts
(`acp_schema.transcripts`) and the command line (`acp_schema.cli`).
"""
