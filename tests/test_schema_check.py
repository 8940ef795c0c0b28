"""Behaviour of the schema loader and checker (acp_schema.codegen.schema_check)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_schema.codegen.schema_check import (
    Problem,
    SchemaError,
    check_schema_document,
    check_schema_file,
    load_schema,
)
from tests.budget import examples
from tests.reference_schemas import RELEASES, VERSIONS, require_reference

REPO = Path(__file__).resolve().parents[1]
REFERENCE_SCHEMAS = [f"{release}/{version}" for release in RELEASES for version in VERSIONS]
BUNDLED = REPO / "codegen" / "schema"


def acp_like() -> dict[str, Any]:
    """A small valid schema shaped like ACP: methods, a tagged union, x- keywords."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Mini protocol",
        "anyOf": [{"$ref": "#/$defs/AgentRequest"}],
        "$defs": {
            "AgentRequest": {
                "type": "object",
                "properties": {
                    "method": {"type": "string"},
                    "params": {
                        "anyOf": [
                            {"title": "Open", "allOf": [{"$ref": "#/$defs/OpenRequest"}]},
                            {"title": "Close", "allOf": [{"$ref": "#/$defs/CloseRequest"}]},
                        ]
                    },
                },
                "required": ["method"],
                "x-docs-ignore": True,
            },
            "OpenRequest": {
                "description": "Opens a document.",
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "tags": {
                        "type": ["array", "null"],
                        "items": {"type": "string"},
                        "x-deserialize-default-on-error": True,
                        "x-deserialize-skip-invalid-items": True,
                    },
                },
                "required": ["name"],
                "x-side": "agent",
                "x-method": "doc/open",
            },
            "CloseRequest": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
                "additionalProperties": False,
                "x-side": "agent",
                "x-method": "doc/close",
            },
            "Shape": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {"kind": {"type": "string", "const": "circle"}},
                        "required": ["kind"],
                        "allOf": [{"$ref": "#/$defs/Circle"}],
                    },
                    {
                        "type": "object",
                        "properties": {"kind": {"type": "string", "const": "square"}},
                        "required": ["kind"],
                        "allOf": [{"$ref": "#/$defs/Square"}],
                    },
                ],
                "discriminator": {"propertyName": "kind"},
            },
            "Circle": {
                "type": "object",
                "properties": {"radius": {"type": "number", "minimum": 0}},
                "required": ["radius"],
            },
            "Square": {
                "type": "object",
                "properties": {"side": {"type": "number"}},
                "required": ["side"],
            },
        },
    }


def write(tmp_path: Path, text: str, name: str = "schema.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_fixture_is_clean() -> None:
    assert check_schema_document(acp_like()) == []


# --- unusable input ------------------------------------------------------------------


def test_invalid_json_is_unusable_with_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, '{\n  "a": 1,\n  "b" 2\n}')
    with pytest.raises(SchemaError) as caught:
        check_schema_file(path)
    assert caught.value.unusable
    assert caught.value.problems == (
        Problem("", "invalid JSON at line 3, column 7: Expecting ':' delimiter"),
    )


def test_missing_file_is_unusable_and_names_path_and_reason(tmp_path: Path) -> None:
    path = tmp_path / "nope.json"
    with pytest.raises(SchemaError) as caught:
        load_schema(path)
    assert caught.value.unusable
    assert caught.value.path == str(path)
    assert caught.value.problems == (Problem("", f"cannot read {path}: No such file or directory"),)


def test_directory_is_unusable(tmp_path: Path) -> None:
    with pytest.raises(SchemaError) as caught:
        check_schema_file(tmp_path)
    assert caught.value.unusable
    [problem] = caught.value.problems
    assert problem.message.startswith(f"cannot read {tmp_path}: ")


def test_non_standard_constants_are_not_json(tmp_path: Path) -> None:
    path = write(tmp_path, '{"default": NaN}')
    with pytest.raises(SchemaError) as caught:
        check_schema_file(path)
    assert caught.value.unusable
    assert caught.value.problems == (Problem("", "invalid JSON: NaN is not a JSON value"),)


def test_top_level_array() -> None:
    assert check_schema_document([{"type": "string"}]) == [
        Problem("", "top level must be a JSON object (a schema), got an array")
    ]


# --- JSON and Draft 2020-12 ------------------------------------------------------------


def test_duplicate_keys_are_problems_with_the_object_pointer(tmp_path: Path) -> None:
    text = '{"$defs": {"A": {"type": "string", "title": "A", "type": "integer"}}}'
    assert check_schema_file(write(tmp_path, text)) == [
        Problem(
            "/$defs/A",
            "duplicate key 'type' in this object (JSON parsers keep only the last value)",
        )
    ]


def test_meta_schema_violations_each_with_their_pointer() -> None:
    doc = acp_like()
    doc["$defs"]["Circle"]["type"] = 5
    doc["$defs"]["Square"]["required"] = "side"
    prefix = "not a valid Draft 2020-12 schema: "
    kinds = "['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']"
    assert check_schema_document(doc) == [
        Problem(
            "/$defs/Circle/type",
            prefix + "5 is not valid under any of the given schemas "
            f"(5 is not one of {kinds}; 5 is not of type 'array')",
        ),
        Problem("/$defs/Square/required", prefix + "'side' is not of type 'array'"),
    ]


def test_meta_schema_messages_do_not_dump_whole_definitions() -> None:
    doc = acp_like()
    doc["$defs"]["Circle"]["items"] = [{"description": "x" * 500}]
    [problem] = check_schema_document(doc)
    assert problem.pointer == "/$defs/Circle/items"
    start = "[{'description': '" + "x" * 39  # the instance's repr cut at 57 characters
    assert problem.message == (
        f"not a valid Draft 2020-12 schema: {start}... is not of type 'object', 'boolean'"
    )


def test_other_dialects_are_rejected() -> None:
    doc = acp_like()
    doc["$schema"] = "http://json-schema.org/draft-07/schema#"
    assert check_schema_document(doc) == [
        Problem(
            "/$schema",
            "$schema must be 'https://json-schema.org/draft/2020-12/schema', "
            'got "http://json-schema.org/draft-07/schema#"',
        )
    ]


# --- $ref ------------------------------------------------------------------------------


def test_unresolvable_ref() -> None:
    doc = acp_like()
    doc["$defs"]["Circle"]["properties"]["centre"] = {"$ref": "#/$defs/Point"}
    assert check_schema_document(doc) == [
        Problem(
            "/$defs/Circle/properties/centre",
            "$ref '#/$defs/Point' does not resolve: there is no 'Point' in #/$defs",
        )
    ]


def test_remote_ref() -> None:
    doc = acp_like()
    doc["$defs"]["Square"]["allOf"] = [{"$ref": "shapes.json#/$defs/Square"}]
    assert check_schema_document(doc) == [
        Problem(
            "/$defs/Square/allOf/0",
            "$ref 'shapes.json#/$defs/Square' does not resolve: it points outside this "
            "document; only local refs ('#...') are supported",
        )
    ]


def test_escaped_and_percent_encoded_pointers_resolve() -> None:
    doc = acp_like()
    doc["$defs"]["a/b~c"] = {"type": "string"}
    doc["$defs"]["with space"] = {"type": "string"}
    doc["$defs"]["Circle"]["properties"]["label"] = {"$ref": "#/$defs/a~1b~0c"}
    doc["$defs"]["Circle"]["properties"]["note"] = {"$ref": "#/$defs/with%20space"}
    doc["$defs"]["Circle"]["properties"]["tuple"] = {"$ref": "#/$defs/Shape/oneOf/1"}
    assert check_schema_document(doc) == []


def test_wrongly_escaped_pointer_does_not_resolve() -> None:
    doc = acp_like()
    doc["$defs"]["a/b"] = {"type": "string"}
    doc["$defs"]["Circle"]["properties"]["label"] = {"$ref": "#/$defs/a/b"}
    assert check_schema_document(doc) == [
        Problem(
            "/$defs/Circle/properties/label",
            "$ref '#/$defs/a/b' does not resolve: there is no 'a' in #/$defs",
        )
    ]


def test_ref_into_data_is_not_a_schema() -> None:
    doc = acp_like()
    doc["$defs"]["Circle"]["properties"]["radius"]["default"] = {"type": "string"}
    doc["$defs"]["Square"]["properties"]["side"] = {
        "$ref": "#/$defs/Circle/properties/radius/default"
    }
    assert check_schema_document(doc) == [
        Problem(
            "/$defs/Square/properties/side",
            "$ref '#/$defs/Circle/properties/radius/default' does not resolve: "
            "it points to an object that is not in a schema position",
        )
    ]


def test_anchor_refs_resolve_only_to_declared_anchors() -> None:
    doc = acp_like()
    doc["$defs"]["Circle"]["$anchor"] = "round"
    doc["$defs"]["Square"]["properties"]["a"] = {"$ref": "#round"}
    doc["$defs"]["Square"]["properties"]["b"] = {"$ref": "#flat"}
    assert check_schema_document(doc) == [
        Problem(
            "/$defs/Square/properties/b",
            "$ref '#flat' does not resolve: no schema declares $anchor 'flat'",
        )
    ]


# --- x- keywords -------------------------------------------------------------------------


def test_unknown_x_keyword_is_a_warning_that_suggests_the_near_one() -> None:
    doc = acp_like()
    doc["$defs"]["OpenRequest"]["x-sides"] = "agent"
    doc["$defs"]["Circle"]["x-colour"] = "red"
    known = (
        "x-deserialize-default-on-error, x-deserialize-skip-invalid-items, "
        "x-deserialize-default-on-null, x-method, x-side, x-docs-ignore"
    )
    assert check_schema_document(doc) == []  # carried through, never a refusal
    assert check_schema_document(doc, warnings=True) == [
        Problem(
            "/$defs/Circle",
            f"unknown extension keyword 'x-colour', carried through (known: {known})",
            warning=True,
        ),
        Problem(
            "/$defs/OpenRequest",
            "unknown extension keyword 'x-sides', carried through (did you mean 'x-side'?)",
            warning=True,
        ),
    ]


def test_mistyped_x_keywords_say_what_was_expected() -> None:
    doc = acp_like()
    tags = doc["$defs"]["OpenRequest"]["properties"]["tags"]
    tags["x-deserialize-default-on-error"] = "yes"
    tags["x-deserialize-default-on-null"] = 1
    doc["$defs"]["AgentRequest"]["x-docs-ignore"] = "true"
    doc["$defs"]["CloseRequest"]["x-method"] = ""
    wanted = "a boolean (true: on, false: off)"
    assert check_schema_document(doc, warnings=True) == [
        Problem("/$defs/AgentRequest", 'x-docs-ignore is usually a boolean, got "true"', True),
        Problem("/$defs/CloseRequest", 'x-method must be a non-empty string, got ""'),
        Problem(
            "/$defs/OpenRequest/properties/tags",
            f'x-deserialize-default-on-error must be {wanted}, got "yes"',
        ),
        Problem(
            "/$defs/OpenRequest/properties/tags",
            f"x-deserialize-default-on-null must be {wanted}, got 1",
        ),
    ]


def test_decoding_keywords_may_be_switched_off() -> None:
    doc = acp_like()
    tags = doc["$defs"]["OpenRequest"]["properties"]["tags"]
    tags["x-deserialize-default-on-error"] = False
    tags["x-deserialize-skip-invalid-items"] = False
    doc["$defs"]["Circle"]["x-deserialize-skip-invalid-items"] = False  # off: no array needed
    assert check_schema_document(doc, warnings=True) == []


def test_any_x_side_is_accepted_a_new_one_with_a_warning() -> None:
    doc = acp_like()
    doc["$defs"]["OpenRequest"]["x-side"] = "server"
    doc["$defs"]["CloseRequest"]["x-side"] = "proxy"  # published in ACP 2.3.0
    assert check_schema_document(doc) == []
    assert check_schema_document(doc, warnings=True) == [
        Problem(
            "/$defs/OpenRequest",
            "new x-side 'server' (known: agent, client, protocol, proxy); "
            "the generated Side type includes it",
            warning=True,
        )
    ]
    doc["$defs"]["OpenRequest"]["x-side"] = 3
    assert check_schema_document(doc) == [
        Problem("/$defs/OpenRequest", "x-side must be a non-empty string, got 3")
    ]


def test_x_method_without_x_side() -> None:
    doc = acp_like()
    del doc["$defs"]["OpenRequest"]["x-side"]
    assert check_schema_document(doc) == [
        Problem("/$defs/OpenRequest", "x-method without x-side: say which side handles the method")
    ]


def test_x_side_without_x_method_is_ignored_with_a_warning() -> None:
    doc = acp_like()
    doc["$defs"]["Circle"]["x-side"] = "client"
    assert check_schema_document(doc) == []
    assert check_schema_document(doc, warnings=True) == [
        Problem(
            "/$defs/Circle",
            "x-side without x-method: ignored (x-side only belongs on a method)",
            warning=True,
        )
    ]


def test_a_method_outside_every_envelope_is_a_warning() -> None:
    doc = acp_like()
    doc["$defs"]["StrayRequest"] = {"type": "object", "x-side": "agent", "x-method": "doc/x"}
    assert check_schema_document(doc, warnings=True) == [
        Problem(
            "/$defs/StrayRequest",
            "has x-method, but no request, notification or response envelope refers to it: "
            "it is left out of the method table",
            warning=True,
        )
    ]


def test_two_request_definitions_for_one_method_are_an_error() -> None:
    doc = acp_like()
    doc["$defs"]["ReopenRequest"] = {"type": "object", "x-side": "agent", "x-method": "doc/open"}
    doc["$defs"]["OtherEnvelope"] = {
        "type": "object",
        "properties": {"method": {"type": "string"}, "params": {"$ref": "#/$defs/ReopenRequest"}},
    }
    assert check_schema_document(doc) == [
        Problem(
            "",
            "x-method 'doc/open' (x-side 'agent') has several notification definitions "
            "(OpenRequest, ReopenRequest): the method table would be ambiguous",
        )
    ]


def test_definitions_that_would_share_a_class_name() -> None:
    doc = acp_like()
    doc["$defs"]["circle"] = {"type": "object"}
    doc["definitions"] = {"Square": {"type": "object"}}
    assert check_schema_document(doc) == [
        Problem("/$defs", "definitions 'Circle', 'circle' would all become class 'Circle' "
                "(see the class-name rule in docs/bindings.md); rename one"),
        Problem("/definitions/Square", "'Square' is defined in both $defs and definitions: "
                "the bindings would have one class for two schemas"),
    ]  # fmt: skip


def test_skip_invalid_items_needs_an_array_schema() -> None:
    doc = acp_like()
    doc["$defs"]["OpenRequest"]["properties"]["name"]["x-deserialize-skip-invalid-items"] = True
    assert check_schema_document(doc) == [
        Problem(
            "/$defs/OpenRequest/properties/name",
            "x-deserialize-skip-invalid-items only applies to array schemas "
            "(type 'array' or items), but this schema does not allow arrays",
        )
    ]


def test_x_names_in_data_positions_are_not_keywords() -> None:
    doc = acp_like()
    # A property called "x-trace", and x- keys inside default/examples values, are data
    # (an object `const` is refused for another reason: the bindings cannot hold it).
    doc["$defs"]["Circle"]["properties"]["x-trace"] = {"type": "string"}
    doc["$defs"]["Circle"]["default"] = {"radius": 1, "x-anything": 5}
    doc["$defs"]["Square"]["examples"] = [{"x-side": "nobody"}]
    assert check_schema_document(doc) == []


def test_a_union_must_not_offer_the_same_method_twice() -> None:
    doc = acp_like()
    doc["$defs"]["ReopenRequest"] = {
        "type": "object",
        "x-side": "agent",
        "x-method": "doc/open",
    }
    params = doc["$defs"]["AgentRequest"]["properties"]["params"]
    params["anyOf"].append({"allOf": [{"$ref": "#/$defs/ReopenRequest"}]})
    assert check_schema_document(doc) == [
        Problem(
            "/$defs/AgentRequest/properties/params",
            "anyOf variants 0 and 2 both stand for x-method 'doc/open' (x-side 'agent')",
        )
    ]


def test_same_method_in_separate_unions_is_fine() -> None:
    # ACP gives a request and its response the same x-side and x-method.
    doc = acp_like()
    doc["$defs"]["OpenResponse"] = {"type": "object", "x-side": "agent", "x-method": "doc/open"}
    doc["$defs"]["AgentResponse"] = {"anyOf": [{"$ref": "#/$defs/OpenResponse"}]}
    assert check_schema_document(doc) == []


# --- unions and required -------------------------------------------------------------------


def test_colliding_union_tags() -> None:
    doc = acp_like()
    doc["$defs"]["Shape"]["oneOf"][1]["properties"]["kind"]["const"] = "circle"
    assert check_schema_document(doc) == [
        Problem("/$defs/Shape", "oneOf variants 0 and 1 have the same tag kind='circle'"),
    ]


def test_tags_that_differ_on_another_tag_property_do_not_collide() -> None:
    doc = acp_like()
    del doc["$defs"]["Shape"]["discriminator"]
    for variant, unit in zip(doc["$defs"]["Shape"]["oneOf"], ("cm", "in"), strict=True):
        variant["properties"]["kind"]["const"] = "circle"
        variant["properties"]["unit"] = {"type": "string", "const": unit}
    # Valid for the tag check; the generator names variants by their first tag, though,
    # so schema check says it cannot generate this one (instead of generate failing later).
    # attack #17: it said "#" and "two definitions", naming neither
    [problem] = check_schema_document(doc)
    assert problem.pointer == "/$defs/Shape"
    assert problem.message.startswith(
        "cannot be generated: the naming rule gives a part of Shape the class name "
        "'ShapeCircle', which another part has already"
    )


def test_a_variant_named_like_a_definition_points_at_its_union() -> None:
    doc = acp_like()
    del doc["$defs"]["Shape"]["oneOf"][0]["allOf"]  # named by its tag: ShapeCircle
    doc["$defs"]["ShapeCircle"] = {"type": "string"}
    [problem] = check_schema_document(doc)
    assert problem.pointer == "/$defs/Shape"
    assert "'ShapeCircle', which a definition of the schema has already" in problem.message


def test_discriminator_property_missing_in_a_variant() -> None:
    doc = acp_like()
    doc["$defs"]["Shape"]["oneOf"][0]["properties"] = {"shape": {"const": "circle"}}
    doc["$defs"]["Shape"]["oneOf"][1]["required"] = []
    assert check_schema_document(doc) == [
        Problem("/$defs/Shape", "discriminator property 'kind' is not defined in oneOf variant 0"),
        Problem("/$defs/Shape", "discriminator property 'kind' is not required by oneOf variant 1"),
        Problem(
            "/$defs/Shape/oneOf/0",
            'required: ["kind"] not declared in properties: the bindings do not enforce it; '
            "cannot be generated",
        ),
    ]


def test_discriminator_property_may_come_from_a_referenced_definition() -> None:
    doc = acp_like()
    shape = doc["$defs"]["Shape"]
    shape["oneOf"][0] = {"$ref": "#/$defs/Circle"}
    doc["$defs"]["Circle"]["properties"]["kind"] = {"const": "circle"}
    doc["$defs"]["Circle"]["required"].append("kind")
    assert check_schema_document(doc) == []


def test_required_property_forbidden_by_additional_properties_false() -> None:
    doc = acp_like()
    doc["$defs"]["CloseRequest"]["required"] = ["name", "force"]
    assert check_schema_document(doc) == [
        Problem(
            "/$defs/CloseRequest",
            "required property 'force' is not in properties and additionalProperties is "
            "false, so no object can be valid",
        )
    ]


def test_pattern_properties_beside_properties_are_refused() -> None:
    # Valid JSON Schema, but the model's extra keys never meet the pattern's schema, and a
    # model field is the only `required` the bindings check (attack #3).
    doc = acp_like()
    doc["$defs"]["CloseRequest"]["required"] = ["name", "x-force"]
    doc["$defs"]["CloseRequest"]["patternProperties"] = {"^x-": {"type": "boolean"}}
    refused = "the bindings do not enforce it; cannot be generated"
    assert check_schema_document(doc) == [
        Problem("/$defs/CloseRequest", f"patternProperties beside properties: {refused}"),
        Problem(
            "/$defs/CloseRequest", f'required: ["x-force"] not declared in properties: {refused}'
        ),
    ]


def test_a_required_name_matched_by_a_pattern_is_no_contradiction() -> None:
    doc = acp_like()
    doc["$defs"]["CloseRequest"] = {
        "type": "object",
        "patternProperties": {"^x-": {"type": "boolean"}},
        "additionalProperties": False,
        "required": ["x-force"],
        "x-method": "doc/close",
        "x-side": "agent",
    }
    messages = [p.message for p in check_schema_document(doc)]
    assert not any("no object can be valid" in m for m in messages), messages
    assert any(m.startswith('required: ["x-force"] not declared') for m in messages), messages


# --- reporting everything ------------------------------------------------------------------


def test_every_problem_of_a_document_is_reported_sorted(tmp_path: Path) -> None:
    doc = acp_like()
    doc["$defs"]["Circle"]["type"] = "cirle"
    doc["$defs"]["Circle"]["properties"]["centre"] = {"$ref": "#/$defs/Point"}
    doc["$defs"]["Shape"]["oneOf"][1]["properties"]["kind"]["const"] = "circle"
    doc["$defs"]["OpenRequest"]["x-side"] = ""
    text = json.dumps(doc).replace('"title": "Mini protocol"', '"title": "A", "title": "B"')
    problems = check_schema_file(write(tmp_path, text))
    assert [p.pointer for p in problems] == [
        "",
        "/$defs/Circle/properties/centre",
        "/$defs/Circle/type",
        "/$defs/OpenRequest",
        "/$defs/Shape",
    ]
    assert problems == sorted(problems)


def test_load_schema_returns_the_clean_document(tmp_path: Path) -> None:
    assert load_schema(write(tmp_path, json.dumps(acp_like()))) == acp_like()


def test_load_schema_raises_with_every_problem_one_per_line(tmp_path: Path) -> None:
    doc = acp_like()
    del doc["$defs"]["OpenRequest"]["x-side"]
    doc["$defs"]["Square"]["properties"]["side"] = {"$ref": "#/$defs/Nope"}
    path = write(tmp_path, json.dumps(doc))
    with pytest.raises(SchemaError) as caught:
        load_schema(path)
    assert not caught.value.unusable
    assert str(caught.value).splitlines() == [
        f"{path}: #/$defs/OpenRequest: x-method without x-side: say which side handles the method",
        f"{path}: #/$defs/Square/properties/side: $ref '#/$defs/Nope' does not resolve: "
        "there is no 'Nope' in #/$defs",
    ]


def test_problem_str_uses_a_fragment_pointer() -> None:
    assert str(Problem("", "bad")) == "#: bad"
    assert str(Problem("/$defs/A", "bad")) == "#/$defs/A: bad"
    assert str(Problem("/$defs/A", "odd", warning=True)) == "#/$defs/A: warning: odd"


# --- real schemas ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", REFERENCE_SCHEMAS)
def test_reference_schemas_have_no_problems(name: str) -> None:
    path = require_reference(*name.split("/"))
    assert check_schema_file(path) == []


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_bundled_schemas_load_cleanly(version: str) -> None:
    # No skip: the bundled schemas are part of the package and must be present.
    doc = load_schema(BUNDLED / version / "schema.unstable.json")
    assert doc["$defs"]


# --- robustness -------------------------------------------------------------------------------

KEYS = st.sampled_from(
    [
        "$ref",
        "$defs",
        "$anchor",
        "properties",
        "patternProperties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "oneOf",
        "allOf",
        "discriminator",
        "propertyName",
        "const",
        "type",
        "x-side",
        "x-method",
        "x-deserialize-skip-invalid-items",
        "x-other",
        "a",
    ]
)
REFS = st.sampled_from(["#", "#/$defs/a", "#/$defs/a/properties", "#/x~2", "#a", "b.json"])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3) | REFS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=examples(100, 300), deadline=None)
@given(st.dictionaries(KEYS, JSON, max_size=5) | JSON)
def test_any_json_value_gets_a_sorted_report_not_a_crash(doc: Any) -> None:
    problems = check_schema_document(doc)
    assert all(isinstance(p, Problem) for p in problems)
    assert problems == sorted(set(problems))


@pytest.mark.parametrize("pattern", ["^\\p{L}+$", "^(?<n>a)$", "^[a-z&&[^aeiou]]+$", "[[:alpha:]]"])
def test_patterns_are_judged_by_the_bindings_engine_not_pythons_re(pattern: str) -> None:
    # attack #5/#16: the meta-schema's `regex` format ran Python's re, which refused
    # `\p{L}` as "not a 'regex'" and printed FutureWarnings for `&&` and `[[:`
    doc = acp_like()
    doc["$defs"]["CloseRequest"]["properties"]["name"]["pattern"] = pattern
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check_schema_document(doc) == []


def test_a_pattern_the_engine_refuses_is_still_one_problem_with_its_reason() -> None:
    doc = acp_like()
    doc["$defs"]["CloseRequest"]["properties"]["name"]["pattern"] = "(a"
    [problem] = check_schema_document(doc)
    assert problem.pointer == "/$defs/CloseRequest/properties/name"
    assert problem.message.startswith('pattern "(a" cannot be generated')
