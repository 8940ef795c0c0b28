"""`codegen/generate/model_parts.py`: the models module in two parts, the first holding
exactly what the roots need, the second the rest after an import of the first's names."""

from __future__ import annotations

import ast
import sys
import types

import libcst as cst
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_schema.codegen.generate.model_parts import split_models

SOURCE = '''\
# header comment
from typing import Annotated, Any

Id = str
"""An attribute docstring that stays with `Id`."""


class Leaf:
    value: Id


class Other:
    note: Any


class Root:
    leaf: Leaf
    later: "Later"


class Later:
    text: Annotated[str, "Leaf is only text here"]


class Unrelated:
    other: Other
'''


def defined(source: str) -> list[str]:
    names = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return names


def test_the_first_part_is_the_closure_of_the_roots_in_order() -> None:
    parts = split_models(cst.parse_module(SOURCE), ["Root"])
    # `Later` is named by a string (a forward reference); a string that is not exactly a
    # defined name ("Leaf is only text here") names nothing
    assert defined(parts.notifications) == ["Id", "Leaf", "Root", "Later"]
    assert parts.names == {"Id", "Leaf", "Root", "Later"}
    assert defined(parts.models) == ["Other", "Unrelated"]
    assert parts.notifications.startswith("# header comment\nfrom typing import Annotated, Any")
    assert '"""An attribute docstring that stays with `Id`."""' in parts.notifications
    assert "from ._notifications import Id as Id, Later as Later" in parts.models
    imported = next(
        node
        for node in ast.parse(parts.models).body
        if isinstance(node, ast.ImportFrom) and node.module == "_notifications"
    )
    assert [(a.name, a.asname) for a in imported.names] == [
        (name, name) for name in ["Id", "Later", "Leaf", "Root"]
    ]
    assert parts.models.index("_notifications") < parts.models.index("class Other")


def test_without_roots_the_first_part_holds_only_the_header() -> None:
    parts = split_models(cst.parse_module(SOURCE), [])
    assert defined(parts.notifications) == []
    assert parts.names == frozenset()
    assert defined(parts.models) == defined(SOURCE)
    assert "_notifications" not in parts.models


def test_a_root_the_module_does_not_define_is_ignored() -> None:
    parts = split_models(cst.parse_module(SOURCE), ["Missing", "Other"])
    assert defined(parts.notifications) == ["Other"]


def test_a_statement_before_the_first_definition_is_refused() -> None:
    with pytest.raises(
        ValueError, match=r"^the models module has a statement before its first definition$"
    ):
        split_models(cst.parse_module('"""doc"""\nX = 1\n'), ["X"])


def _load(parts_source: dict[str, str]) -> dict[str, types.ModuleType]:
    """The two parts as modules of a scratch package, the first imported by the second."""
    package = types.ModuleType("scratch_parts")
    package.__path__ = []
    sys.modules[package.__name__] = package
    loaded = {}
    try:
        for name in ("_notifications", "_models"):
            module = types.ModuleType(f"{package.__name__}.{name}")
            module.__package__ = package.__name__
            sys.modules[module.__name__] = module
            exec(compile(parts_source[name], name, "exec"), module.__dict__)
            loaded[name] = module
    finally:
        for name in [n for n in sys.modules if n.startswith(package.__name__)]:
            del sys.modules[name]
    return loaded


NAMES = ["A", "B", "C", "D", "E", "F"]


@settings(max_examples=60, deadline=None)
@given(
    refs=st.lists(st.sets(st.integers(0, 5)), min_size=6, max_size=6),
    roots=st.sets(st.sampled_from(NAMES)),
)
def test_both_parts_import_and_hold_every_definition_once(
    refs: list[set[int]], roots: set[str]
) -> None:
    """Drawn dependency graphs (each class may refer to earlier ones): the first part is
    closed under reference, the second holds the rest, and together they run."""
    lines = []
    for i, name in enumerate(NAMES):
        earlier = sorted(NAMES[j] for j in refs[i] if j < i)
        body = "".join(f"    f{n}: {n}\n" for n in earlier) or "    pass\n"
        lines.append(f"class {name}:\n{body}")
    source = "\n\n".join(lines)
    parts = split_models(cst.parse_module(source), roots)
    first, rest = defined(parts.notifications), defined(parts.models)
    assert sorted(first + rest) == NAMES and not set(first) & set(rest)
    assert set(first) >= roots
    for i, name in enumerate(NAMES):
        if name in first:
            assert {NAMES[j] for j in refs[i] if j < i} <= set(first)
    modules = _load({"_notifications": parts.notifications, "_models": parts.models})
    assert all(hasattr(modules["_models"], name) for name in NAMES)


def test_a_forward_reference_is_read_as_a_type_expression() -> None:
    # attack #6: `L1 = TypeAliasType("L1", "list[L2]")` in the first part, `L2` left in the
    # second: the notification's params were never fully defined
    source = (
        "from typing_extensions import TypeAliasType\n\n"
        "class Params:\n    l: 'L1 | None'\n\n"
        'L1 = TypeAliasType("L1", "list[L2]")\n\n'
        'L2 = TypeAliasType("L2", "dict[str, L1]")\n\n'
        "class Unrelated:\n    note: str\n"
    )
    parts = split_models(cst.parse_module(source), ["Params"])
    assert parts.names == {"Params", "L1", "L2"}


def test_a_failure_summary_gives_the_reason_not_pydantics_link() -> None:
    from acp_schema.codegen.generate.pipeline import failure_summary

    failed = RuntimeError(
        "the generated package does not import (1):\nTraceback ...\n"
        "pydantic.errors.PydanticUndefinedAnnotation: name 'L2' is not defined\n"
        "\nFor further information visit https://errors.pydantic.dev/2.14/u/undefined-annotation\n"
    )
    assert failure_summary(failed) == (
        "the generated package does not import (1): "
        "pydantic.errors.PydanticUndefinedAnnotation: name 'L2' is not defined"
    )
