"""The schema-drawing property: every drawn schema (tests/schema_drawing.py) either
generates an importable package whose models decode instances drawn from the schema and
encode them back to the same JSON value, or is refused by `generate` with one line per
problem, each naming a JSON pointer, before anything is written. A sample of the generated
packages must pass `mypy --strict` (mypy is slow: one run over the sample, after the
property).

Budget (tests/budget.py): 6 schemas by default, 60 with ACP_SCHEMA_LONG=1; each costs a
datamodel-codegen run (about a second), and up to 3 instances are decoded per schema.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from jsonschema.protocols import Validator
from referencing import Registry, Resource

from acp_schema.codegen.schema_check import SchemaError, check_schema_document

from .budget import LONG, examples
from .generated_packages import generate_package, refusal
from .release_matrix import mypy_strict
from .schema_drawing import schemas
from .schema_strategies import SchemaStrategies
from .schema_validator import EcmaValidator

MYPY_SAMPLE = 10 if LONG else 3
_COUNTER = itertools.count()


def json_equal(a: Any, b: Any) -> bool:
    """Equal as JSON values: a boolean is no number, numbers compare by value."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(json_equal, a, b))
    return type(a) is type(b) and bool(a == b)


def message_validator(document: dict[str, Any]) -> Validator:
    """Validates a `Message` of `document`, with `#` meaning the document's root."""
    registry: Registry[Any] = Registry().with_resource(
        "urn:drawn", Resource.from_contents(document)
    )
    return EcmaValidator({"$ref": "urn:drawn#/$defs/Message"}, registry=registry)


def test_drawn_schemas_generate_faithful_bindings_or_are_refused(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    root = tmp_path_factory.mktemp("drawn")
    generated: list[str] = []
    refused: list[str] = []

    @settings(
        max_examples=examples(6, 60),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(document=schemas(), data=st.data())
    def prop(document: dict[str, Any], data: st.DataObject) -> None:
        name = f"drawn_{next(_COUNTER)}"
        problems = check_schema_document(document)
        if problems:
            lines = refusal(document, root, name)  # asserts nothing was written
            assert len(lines) == len(problems)
            assert all(": #" in line and "\n" not in line for line in lines), lines
            refused.append(lines[0])
            return
        try:
            package = generate_package(document, root, name)
        except SchemaError as exc:  # a refusal the checks did not foresee: still one line
            raise AssertionError(f"checked clean, then refused: {exc}") from None
        generated.append(name)
        validator = message_validator(document)
        draw_from = SchemaStrategies({"$defs": {}, **document}, good_formats=True)
        for _ in range(3):
            instance = data.draw(draw_from.node({"$ref": "#/$defs/Message"}))
            assume(validator.is_valid(instance))
            decoded = package.models.Message.model_validate_json(json.dumps(instance))
            back = json.loads(decoded.model_dump_json(by_alias=True, exclude_unset=True))
            assert json_equal(back, instance), (instance, back)

    prop()
    print(f"drawn schemas: {len(generated)} generated, {len(refused)} refused")
    assert mypy_strict(root, generated[:MYPY_SAMPLE]) == {}
