"""The post-pass helpers that replaced slower libcst calls give the same answers as those
calls: `_holds_int` as `libcst.matchers.findall`, `finish_module(...).names` as a read of
the printed module; the collector pause ends as it began."""

from __future__ import annotations

import ast
import gc
from pathlib import Path

import libcst as cst
import libcst.matchers as m
import pytest

from acp_schema.codegen.generate.postpass import PostpassPlan, _holds_int, finish_module

REPO = Path(__file__).resolve().parents[1]

ANNOTATIONS = [
    "int",
    "str",
    "list[int] | None",
    "Annotated[int | None, Field(ge=0, description='a count')]",
    "Annotated[str, Field(alias='int')]",  # the word only inside a string
    "Literal['int']",
    "dict[str, Annotated[list[tuple[int, ...]], SkipInvalidItems()]]",
    "typing.int",  # an attribute named int is a Name too
    "Callable[[str], int]",
    "Annotated[float, Field(default=-int)]",
    "(int)",
    "not_int | integer",
]


def _expected(expression: cst.BaseExpression) -> bool:
    return bool(m.findall(expression, m.Name("int")))


@pytest.mark.parametrize("code", ANNOTATIONS)
def test_holds_int_agrees_with_findall(code: str) -> None:
    expression = cst.parse_expression(code)
    assert _holds_int(expression) == _expected(expression)


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_holds_int_agrees_with_findall_on_the_generated_module(version: str) -> None:
    module = cst.parse_module((REPO / "generated" / version / "_models.py").read_text("utf-8"))
    annotations = [
        node.annotation.annotation
        for statement in module.body
        if isinstance(statement, cst.ClassDef)
        for line in statement.body.body
        if isinstance(line, cst.SimpleStatementLine)
        for node in line.body
        if isinstance(node, cst.AnnAssign)
    ]
    answers = [(_holds_int(a), _expected(a)) for a in annotations]
    assert len(answers) > 100
    assert all(ours == theirs for ours, theirs in answers)
    assert {ours for ours, _ in answers} == {True, False}  # both answers occur


SOURCE = """\
from __future__ import annotations

from enum import Enum

from typing_extensions import TypeAliasType

from acp_schema._runtime import AcpModel


class Colour(Enum):
    red = "red"


class Point(AcpModel):
    x: int
    y: int | None = None


Number = TypeAliasType("Number", int | float)
a = b = 1
c: int = 2
(d, e) = (3, 4)
"""


def test_finished_module_names_are_those_of_its_code() -> None:
    finished = finish_module(SOURCE, PostpassPlan(unions={}))
    printed = set()
    for statement in ast.parse(finished.code).body:
        if isinstance(statement, ast.ClassDef):
            printed.add(statement.name)
        elif isinstance(statement, ast.Assign):
            printed.update(t.id for t in statement.targets if isinstance(t, ast.Name))
    assert finished.names == printed == {"Colour", "Point", "Number", "a", "b"}


def test_the_collector_is_left_as_it_was() -> None:
    was = gc.isenabled()
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            finish_module(SOURCE, PostpassPlan(unions={}))
            assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
