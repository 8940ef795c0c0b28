"""`METHODS.decode` / `decode_models` on the envelope's edge cases: which kind a message is,
which method a response belongs to, and what is refused (each test fails on a mutant a real
bug could look like: a success read from a message that also carries an error, a route kept
from the last message, a request with `"id": null` taken for a notification)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from acp_schema.v1 import fast
from acp_schema.v1 import methods as v1_methods
from acp_schema.v2 import methods as v2_methods

TABLES = {"v1": v1_methods.METHODS, "v2": v2_methods.METHODS}


def _ways(message: dict[str, Any]) -> list[Any]:
    """The message as a dict (the models' path) and as JSON text (the fast path first)."""
    return [message, json.dumps(message), json.dumps(message).encode()]


@pytest.mark.parametrize("version", TABLES)
def test_a_response_with_both_result_and_error_is_refused(version: str) -> None:
    table = TABLES[version]
    both = {"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": -1, "message": "m"}}
    for given in _ways(both):
        with pytest.raises(ValueError, match="`result` or `error`, not both"):
            table.decode(given, method="session/close")
        with pytest.raises(ValueError, match="not both"):
            table.decode_models(given, method="session/close")
    # Each alone is what it says.
    error = {key: value for key, value in both.items() if key != "result"}
    assert table.decode(error, method="session/close").kind == "error"
    result = {key: value for key, value in both.items() if key != "error"}
    assert table.decode(json.dumps(result), method="session/close").kind == "response"


def test_a_response_is_decoded_for_the_method_named_not_the_last_one() -> None:
    table = v1_methods.METHODS
    text = '{"jsonrpc": "2.0", "id": 3, "result": {}}'
    first = table.decode(text, method="logout")
    assert (first.kind, first.method) == ("response", "logout")
    assert isinstance(first.result, fast.LogoutResponse)
    # The same text answering another request: the route of the last message (logout's)
    # would take it too, and must not.
    second = table.decode(text, method="session/close")
    assert (second.kind, second.method, second.id) == ("response", "session/close", 3)
    assert isinstance(second.result, fast.CloseSessionResponse)
    again = table.decode(text, method="logout")
    assert isinstance(again.result, fast.LogoutResponse)


def test_a_request_with_a_null_id_is_a_request() -> None:
    # `mcp/message` is a request on the client's side and a notification on the agent's:
    # an `"id": null` message is the request, in every path.
    table = v1_methods.METHODS
    params = {"serverId": "s", "requestId": "r1", "method": "tools/list", "params": {}}
    message = {"jsonrpc": "2.0", "id": None, "method": "mcp/message", "params": params}
    for given in _ways(message):
        for decoded in (table.decode(given), table.decode_models(given)):
            assert (decoded.kind, decoded.method, decoded.id) == ("request", "mcp/message", None)
            assert type(decoded.params).__name__ == "MessageMcpRequest"
    notification = {key: value for key, value in message.items() if key != "id"}
    decoded = table.decode_models(notification)
    assert decoded.kind == "notification"
    assert type(decoded.params).__name__ == "MessageMcpNotification"


def test_a_request_only_method_with_a_null_id_is_not_looked_up_as_a_notification() -> None:
    table = v1_methods.METHODS
    message = {"jsonrpc": "2.0", "id": None, "method": "logout", "params": {}}
    decoded = table.decode_models(message)
    assert (decoded.kind, decoded.id) == ("request", None)
    with pytest.raises(LookupError, match="unknown method"):
        table.decode_models({key: value for key, value in message.items() if key != "id"})


@pytest.mark.parametrize("version", TABLES)
def test_the_table_knows_its_method_names(version: str) -> None:
    table = TABLES[version]
    assert "session/prompt" in table and "session/update" in table
    assert "session/nope" not in table and 5 not in table


def test_an_unknown_method_is_a_value_error_as_the_docs_say() -> None:
    # attack #18: it was only a LookupError, and a caller catching ValueError crashed
    from acp_schema import UnknownMethodError
    from acp_schema.v2.methods import METHODS

    with pytest.raises(ValueError, match="unknown method '_x/y'") as caught:
        METHODS.decode('{"jsonrpc": "2.0", "method": "_x/y", "params": {}}')
    assert isinstance(caught.value, UnknownMethodError)
    assert isinstance(caught.value, LookupError)
