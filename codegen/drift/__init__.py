"""The drift tools: `acp-schema check` (committed bindings against their schemas) and
`acp-schema diff` (two schemas compared for the wire and the API, `schema_diff.py`)."""
