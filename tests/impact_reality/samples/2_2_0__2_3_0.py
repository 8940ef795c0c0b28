"""Downstream code written against the 2.2.0 v2 bindings (vendored as `acpbind.v2`).

2.2.0 -> 2.3.0 breaks nothing in the Python API; it adds members to unions and enums.
Chains over their members are noted, never reported as failures.
"""

from __future__ import annotations


def describe(status: str) -> str:
    if status == "pending":  # listed
        return "waiting"
    elif status == "in_progress":
        return "running"
    elif status in ("completed", "failed"):
        return "done"
    return "unknown"


def probe_status_chain() -> None:
    assert describe("pending") == "waiting"


def probe_params_match() -> None:
    from acpbind.v2 import InitializeRequest, NewSessionRequest

    params: object = NewSessionRequest(cwd="/work")
    match params:  # listed
        case InitializeRequest():
            kind = "initialize"
        case NewSessionRequest():
            kind = "new"
        case _:
            kind = "other"
    assert kind == "new"


def probe_unrelated_chain() -> None:
    colour = "red"
    if colour == "red" or colour == "blue":  # not listed
        pass


def probe_tool_call_status_keyword() -> None:
    from acpbind.v2 import ToolCallUpdate

    ToolCallUpdate(tool_call_id="t1", status="pending")  # not listed
