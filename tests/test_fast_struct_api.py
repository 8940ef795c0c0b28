"""What a user sees of a fast-path Struct: its docstring and a repr that says it is one."""

from __future__ import annotations

import pytest

from acp_schema import _fast, v1, v2
from acp_schema.v1 import fast as fast_v1
from acp_schema.v2 import fast as fast_v2

FAST = {"v1": fast_v1, "v2": fast_v2}


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_every_struct_has_a_docstring_naming_its_model(version: str) -> None:
    module = FAST[version]
    structs = [
        value
        for name, value in vars(module).items()
        if isinstance(value, type)
        and issubclass(value, _fast.FastStruct)
        and value.__module__ == module.__name__
        and value.__name__ == name
    ]
    assert len(structs) > 50
    for struct in structs:
        assert struct.__doc__ is not None
        assert f"`{struct.__name__}`" in struct.__doc__


def test_a_struct_and_its_model_print_differently() -> None:
    struct = fast_v2.SessionMessage(message_id="m")
    model = v2.SessionMessage(message_id="m")
    assert repr(struct).startswith("fast.SessionMessage(message_id='m', ")
    assert repr(model).startswith("SessionMessage(")
    assert repr(fast_v1.TextContent(text="hi")).startswith("fast.TextContent(")
    assert repr(v1.TextContent(text="hi")).startswith("TextContent(")
