"""Typed pydantic bindings for the Agent Client Protocol unstable schema (v1 and v2)."""
