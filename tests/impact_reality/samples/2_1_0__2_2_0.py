"""Downstream code written against the 2.1.0 v2 bindings (vendored as `acpbind.v2`).

One probe per use of an API-breaking change of 2.1.0 -> 2.2.0, with a look-alike that
the upgrade does not touch.
"""

from __future__ import annotations


def probe_removed_notification_union() -> None:
    from acpbind.v2 import ProtocolLevelNotificationCancelRequest  # breaks

    ProtocolLevelNotificationCancelRequest()  # breaks


def probe_removed_notification_other() -> None:
    from acpbind import v2

    v2.ProtocolLevelNotificationOther(method="x/ping")  # breaks


def probe_kept_notification() -> None:
    from acpbind.v2 import CancelRequestNotification  # not listed

    assert CancelRequestNotification  # not listed


def probe_empty_prompt() -> None:
    from acpbind.v2 import PromptRequest

    PromptRequest(session_id="s1", prompt=[])  # breaks


def probe_prompt_with_a_block() -> None:
    from acpbind.v2 import PromptRequest, TextContent

    PromptRequest(session_id="s1", prompt=[TextContent(text="hi")])  # not listed


def probe_empty_select_group() -> None:
    from acpbind.v2 import SessionConfigSelectGroup

    # The field decodes leniently (default-on-error): the value is dropped, no error.
    SessionConfigSelectGroup(group_id="g", name="Models", options=[])  # listed


def probe_select_group_with_an_option() -> None:
    from acpbind.v2 import SessionConfigSelectGroup, SessionConfigSelectOption

    option = SessionConfigSelectOption(value="fast", name="Fast")
    SessionConfigSelectGroup(group_id="g", name="Models", options=[option])  # not listed


def probe_elicitation_schema_without_required_fields() -> None:
    from acpbind.v2 import ElicitationSchema

    ElicitationSchema(title="Login")  # breaks


def probe_elicitation_schema_complete() -> None:
    from acpbind.v2 import ElicitationSchema

    ElicitationSchema(type="object", properties={}, title="Login")  # not listed


def probe_error_data() -> None:
    from acpbind.v2 import Error

    Error(code=-32000, message="failed", data={"reason": "disk full"})  # listed


def probe_error_without_data() -> None:
    from acpbind.v2 import Error

    Error(code=-32000, message="failed")  # not listed


def probe_error_id_read() -> None:
    from acpbind.v2 import AgentResponseError, Error

    response = AgentResponseError(id=5, error=Error(code=-32000, message="failed"))
    assert response.id + 1 == 6  # listed


def probe_currency() -> None:
    from acpbind.v2 import Cost

    Cost(amount=1.5, currency="EUR")  # listed


def probe_cost_amount_only_field_unchanged() -> None:
    from acpbind.v2 import Cost

    cost = Cost(amount=1.5, currency="EUR")
    assert cost.amount == 1.5  # not listed
