"""What JSON Schema allows but the bindings cannot hold faithfully: each such subschema is
an error of `schema check`, so `generate` refuses it, naming the pointer, before it writes
anything (docs/bindings.md, "What generate refuses").

* ``pattern`` (and ``patternProperties`` keys): only what the regex engine of pydantic-core
  compiles. That engine (Rust's `regex` crate) matches in time linear in the input; for a
  pattern it refuses (look-around, backreferences, a compiled size over its limit)
  datamodel-codegen switches the model to Python's backtracking `re`, where 28 characters
  can take half a minute. The checks match patterns with the same engine, for the same
  reason.
* ``enum`` and ``const`` values: strings, integers of 64 bits (`2.0` counts; mypy takes no
  wider integer literal), booleans and null. A
  fraction, an object or an array has no Python literal, and the generator would widen it
  to any `float`, `dict` or `list`.
* Places that allow nothing, which no Python type says: an ``enum`` that is empty or none
  of whose values has the schema's ``type``, an ``anyOf``/``oneOf`` of nothing but
  ``false``.
* Keywords the bindings would drop (`check_enforcement`, second half of this module).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Final, Literal

from pydantic_core import SchemaError as CoreSchemaError
from pydantic_core import SchemaValidator, core_schema

from .schema_problems import Problem, json_type, short_json, warn
from .schema_refs import MAX_DEPTH, Index, follow, object_view
from .schema_walk import escape

# The engine pydantic-core uses by default, asked for by name: no fallback.
_ENGINE: Final[Literal["rust-regex"]] = "rust-regex"


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> SchemaValidator | str:
    """A validator that searches `pattern` with the linear-time engine, or why it cannot."""
    try:
        return SchemaValidator(core_schema.str_schema(pattern=pattern, regex_engine=_ENGINE))
    except CoreSchemaError as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        reason = lines[-1] if lines else "refused"
        return reason.removeprefix("error: ").removeprefix("SchemaError: ")


def pattern_refusal(pattern: str) -> str | None:
    """Why the linear-time engine refuses `pattern`, or None when it compiles it."""
    found = _compiled(pattern)
    return found if isinstance(found, str) else None


def pattern_search(pattern: str, text: str) -> bool | None:
    """Whether `pattern` matches somewhere in `text` (JSON Schema's `pattern` semantics),
    in linear time; None when the engine refuses the pattern."""
    found = _compiled(pattern)
    return None if isinstance(found, str) else found.isinstance_python(text)


def _pattern_problems(pointer: str, schema: dict[str, Any]) -> list[Problem]:
    patterns: list[tuple[str, object]] = [("pattern", schema.get("pattern"))]
    keyed = schema.get("patternProperties")
    if isinstance(keyed, dict):
        patterns += [("patternProperties key", key) for key in keyed]
    out = []
    for where, pattern in patterns:
        if not isinstance(pattern, str):
            continue  # absent, or a meta-schema error
        reason = pattern_refusal(pattern)
        if reason is not None:
            out.append(
                Problem(
                    pointer,
                    f"{where} {short_json(pattern)} cannot be generated: pydantic's "
                    f"linear-time regex engine refuses it ({reason}), and its fallback, "
                    "Python's backtracking re, can take exponential time",
                )
            )
    return out


# mypy refuses a `Literal[...]` integer past 64 bits (and -2**63, read as minus 2**63).
_LITERAL_INT_MAX = 2**63 - 1


def _too_wide(value: Any) -> bool:
    """An integer (or integral number) literal mypy would not take."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return _literal_value(value) and abs(int(value)) > _LITERAL_INT_MAX


def _literal_value(value: Any) -> bool:
    if value is None or isinstance(value, (str, bool, int)):
        return True
    return isinstance(value, float) and value.is_integer()


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "integer" if float(value).is_integer() else "number"
    return "null" if value is None else "string"


def _value_problems(pointer: str, schema: dict[str, Any]) -> list[Problem]:
    out = []
    values = [("const", schema["const"])] if "const" in schema else []
    listed = schema.get("enum")
    if isinstance(listed, list):
        values += [("enum", value) for value in listed]
    for keyword, value in values:
        if _too_wide(value):
            out.append(
                Problem(
                    pointer,
                    f"{keyword} value {short_json(value)} cannot be generated: a type "
                    f"checker takes integer literals of 64 bits at most (|value| <= "
                    f"{_LITERAL_INT_MAX})",
                )
            )
            return out
        if not _literal_value(value):
            out.append(
                Problem(
                    pointer,
                    f"{keyword} value {short_json(value)} cannot be generated: the bindings "
                    "hold enum and const values that are strings, integers, booleans or null",
                )
            )
            return out  # one line per subschema says it
    types = schema.get("type")
    if not isinstance(listed, list):
        return out
    allowed = types if isinstance(types, list) else [types] if types is not None else None
    if not any(
        allowed is None or _kind(v) in allowed or (_kind(v) == "integer" and "number" in allowed)
        for v in listed
    ):
        which = "an empty enum" if not listed else f"no enum value has the type {short_json(types)}"
        out.append(
            Problem(
                pointer,
                f"{which}: nothing is valid here, and no Python type says that; "
                "cannot be generated",
            )
        )
    return out


def _union_problems(pointer: str, schema: dict[str, Any]) -> list[Problem]:
    out = []
    for key in ("anyOf", "oneOf"):
        members = schema.get(key)
        if isinstance(members, list) and members and all(m is False for m in members):
            out.append(
                Problem(
                    pointer,
                    f"every {key} member is false: nothing is valid here, and no Python type "
                    "says that; cannot be generated",
                )
            )
    return out


def check_generation(pointer: str, schema: dict[str, Any]) -> list[Problem]:
    """What in one subschema the bindings cannot hold faithfully (see the module)."""
    return (
        _pattern_problems(pointer, schema)
        + _value_problems(pointer, schema)
        + _union_problems(pointer, schema)
    )


# --- keywords the bindings would drop ------------------------------------------------------
# JSON Schema keywords the bindings do not enforce: a verdict of "faithful" needs evidence,
# so each one is a problem of `schema check` naming the pointer and the keyword, and
# `generate` refuses it (docs/bindings.md, "What generate handles, and what it refuses").
#
# * keywords the generator drops: ``uniqueItems``, ``dependentRequired``,
#   ``dependentSchemas``, ``minProperties``, ``maxProperties``, ``contains``,
#   ``prefixItems``, ``if``/``then``/``else``, ``unevaluatedProperties`` and
#   ``unevaluatedItems`` other than ``true``;
# * ``not``, except the fallback variant of an open tagged union whose ``not`` excludes
#   exactly the union's tags (the tag dispatch enforces it: a known tag never reaches the
#   fallback);
# * ``oneOf`` whose members are not shown to exclude each other (the bindings decode the
#   first member that fits and never check that no other does): members are exclusive when
#   their JSON types, their ``const``/``enum`` values or their tags tell them apart;
# * ``allOf`` that is neither a single-member wrapper (beside annotations only) nor an object
#   built from object members (what the generator turns into base classes).
#
# An object that declares properties beside ``anyOf``/``oneOf`` alternatives is folded into
# one class (the bundled ACP schemas do it: a stop reason and its error, a session or request
# scope): the alternatives are not checked. That is a *warning*: `generate` reports it and
# carries on, as documented.

# keyword -> whether its value makes it a constraint (`uniqueItems: false` constrains nothing)
_DROPPED: dict[str, Callable[[Any], bool]] = {
    "uniqueItems": lambda v: v is True,
    "dependentRequired": lambda v: bool(v),
    "dependentSchemas": lambda v: bool(v),
    "minProperties": lambda v: v != 0,
    "maxProperties": lambda v: True,
    "contains": lambda v: True,
    "prefixItems": lambda v: True,
    "unevaluatedProperties": lambda v: v is not True,
    "unevaluatedItems": lambda v: v is not True,
}
# What may stand beside a single-member allOf without constraining anything.
_ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
     "$comment", "$id", "$anchor", "allOf"}
)  # fmt: skip

_JSON_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
_REFUSED = "the bindings do not enforce it; cannot be generated"


def check_enforcement(index: Index, subschemas: list[tuple[str, dict[str, Any]]]) -> list[Problem]:
    """Every keyword in the document the bindings would drop (see the module)."""
    enforced_nots = {id(v) for _, schema in subschemas for v in _open_union_fallbacks(schema)}
    # the alternatives of a folded definition: warned about as a whole, below
    folded = {
        id(member)
        for pointer, schema in subschemas
        if _is_definition(pointer) and _folded(schema)
        for key in ("anyOf", "oneOf")
        for member in _members(schema, key)
    }
    out: list[Problem] = []
    for pointer, schema in subschemas:
        out += _dropped(pointer, schema)
        out += _false_properties(index, pointer, schema)
        out += _pattern_properties(pointer, schema)
        if id(schema) not in folded:
            out += _undeclared_required(index, pointer, schema)
        if "not" in schema and id(schema) not in enforced_nots:
            out.append(Problem(pointer, f"not: {_REFUSED}"))
        # A discriminator's variants are checked by check_unions (defined, required, tags
        # distinct); a folded union is a warning below.
        one_of = schema.get("oneOf")
        if isinstance(one_of, list) and "discriminator" not in schema and not _folded(schema):
            out += _one_of(index, pointer, one_of)
        if isinstance(schema.get("allOf"), list):
            out += _all_of(index, pointer, schema)
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list) and _is_definition(pointer) and _folded(schema):
                out.append(
                    warn(
                        pointer,
                        f"{key} beside properties: folded into one class with every "
                        "alternative's properties; the bindings do not check which "
                        "alternative holds",
                    )
                )
    return out


def _is_definition(pointer: str) -> bool:
    """`/$defs/<name>` or `/definitions/<name>`: where the pre-pass folds alternatives."""
    parts = pointer.split("/")
    return len(parts) == 3 and parts[1] in ("$defs", "definitions")


def _members(schema: dict[str, Any], key: str) -> list[Any]:
    members = schema.get(key)
    return members if isinstance(members, list) else []


def _dropped(pointer: str, schema: dict[str, Any]) -> list[Problem]:
    out = [
        Problem(pointer, f"{key}: {_REFUSED}")
        for key, constrains in _DROPPED.items()
        if key in schema and constrains(schema[key])
    ]
    if "if" in schema and ("then" in schema or "else" in schema):
        out.append(Problem(pointer, f"if/then/else: {_REFUSED}"))
    return out


def _false_properties(index: Index, pointer: str, schema: dict[str, Any]) -> list[Problem]:
    """A property whose schema is `false` (or a ref to one): the key is never valid, and no
    Python type says that."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return []
    return [
        Problem(
            f"{pointer}/properties/{escape(name)}",
            "false: a property that is never valid has no type in the bindings; cannot be "
            "generated (drop it: under additionalProperties false the key is refused anyway)",
        )
        for name, sub in props.items()
        if follow(index, sub) is False
    ]


def _undeclared_required(index: Index, pointer: str, schema: dict[str, Any]) -> list[Problem]:
    """`required` names the bindings check only when `properties` (here or in the object's
    `$ref`/`allOf` members) declares them: a model field is required, a map key is not."""
    required = schema.get("required")
    if not isinstance(required, list):
        return []
    declared, _ = object_view(index, schema)
    missing = [name for name in required if isinstance(name, str) and name not in declared]
    if not missing:
        return []
    if schema.get("additionalProperties") is False and not schema.get("patternProperties"):
        return []  # check_required says that no object is valid
    return [
        Problem(
            pointer,
            f"required: {short_json(missing)} not declared in properties: {_REFUSED}",
        )
    ]


def _pattern_properties(pointer: str, schema: dict[str, Any]) -> list[Problem]:
    """`patternProperties` beside `properties`: the model's extra keys take the
    `additionalProperties` schema, never the pattern's."""
    if schema.get("patternProperties") and schema.get("properties"):
        return [Problem(pointer, f"patternProperties beside properties: {_REFUSED}")]
    return []


def _folded(schema: dict[str, Any]) -> bool:
    """Whether the pre-pass folds this object's alternatives into one class."""
    from .generate.prepass import folds  # the generator's own reading: only here

    return folds(schema)


# --- not -----------------------------------------------------------------------------------


def _tag_values(schema: object, prop: str) -> set[str] | None:
    """The tag values of `prop` a `not` excludes: `{properties: {prop: {const|enum}}}`, or an
    anyOf of those; None for any other shape."""
    if not isinstance(schema, dict):
        return None
    if isinstance(schema.get("anyOf"), list):
        found: set[str] = set()
        for member in schema["anyOf"]:
            values = _tag_values(member, prop)
            if values is None:
                return None
            found |= values
        return found
    sub = (schema.get("properties") or {}).get(prop)
    if not isinstance(sub, dict):
        return None
    if isinstance(sub.get("const"), str):
        return {sub["const"]}
    listed = sub.get("enum")
    if isinstance(listed, list) and all(isinstance(v, str) for v in listed):
        return set(listed)
    return None


def _tag(variant: object) -> tuple[str, str] | None:
    if not isinstance(variant, dict) or not isinstance(variant.get("properties"), dict):
        return None
    required = variant.get("required") or []
    for prop, sub in variant["properties"].items():
        if isinstance(sub, dict) and isinstance(sub.get("const"), str) and prop in required:
            return prop, sub["const"]
    return None


def _open_union_fallbacks(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The variants of a tagged union whose `not` excludes exactly the union's tags."""
    out = []
    for key in ("anyOf", "oneOf"):
        variants = schema.get(key)
        if not isinstance(variants, list):
            continue
        tags = [t for t in map(_tag, variants) if t is not None]
        props = {prop for prop, _ in tags}
        if len(props) != 1:
            continue
        (prop,) = props
        known = {value for _, value in tags}
        for variant in variants:
            if (
                isinstance(variant, dict)
                and "not" in variant
                and prop in (variant.get("properties") or {})
                and _tag_values(variant["not"], prop) == known
            ):
                out.append(variant)
    return out


# --- oneOf ---------------------------------------------------------------------------------


def _types(index: Index, member: object) -> set[str] | None:
    """The JSON types a member allows (`number` includes `integer`), when it says."""
    member = follow(index, member)
    if member is False:
        return set()
    if not isinstance(member, dict):
        return None
    values = _values(index, member)
    if values is not None:
        return {json_type(json.loads(v)) for v in values}
    kind = member.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind} if isinstance(kind, str) else None
    if kinds is None:
        wrapped = member.get("allOf")
        if isinstance(wrapped, list) and len(wrapped) == 1:
            return _types(index, wrapped[0])
        return None
    return kinds | ({"integer"} if "number" in kinds else set())


def _values(index: Index, member: object) -> set[str] | None:
    """A member's `const` or `enum` values as canonical JSON text (`1.0` is `1`)."""
    member = follow(index, member)
    if not isinstance(member, dict):
        return None
    listed = [member["const"]] if "const" in member else member.get("enum")
    if not isinstance(listed, list):
        return None

    def canonical(value: Any) -> str:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return json.dumps(value, sort_keys=True)

    return {canonical(v) for v in listed}


def _tags(index: Index, member: object) -> dict[str, object]:
    props, required = object_view(index, member)
    return {
        name: sub["const"]
        for name, sub in props.items()
        if name in required and isinstance(sub, dict) and "const" in sub
    }


def _exclusive(index: Index, a: object, b: object) -> bool:
    """Whether no JSON value can match both members (by types, values or tags)."""
    types_a, types_b = _types(index, a), _types(index, b)
    if types_a is not None and types_b is not None and not types_a & types_b:
        return True
    values_a, values_b = _values(index, a), _values(index, b)
    if values_a is not None and values_b is not None and not values_a & values_b:
        return True
    tags_a, tags_b = _tags(index, a), _tags(index, b)
    shared = tags_a.keys() & tags_b.keys()
    if shared:  # a tag tells them apart, or check_unions reports the same tag
        return True
    return _excludes(index, a, tags_b) or _excludes(index, b, tags_a)


def _excludes(index: Index, member: object, tags: dict[str, object]) -> bool:
    """Whether `member`'s `not` rules out one of the other member's tag values."""
    member = follow(index, member)
    if not isinstance(member, dict) or "not" not in member:
        return False
    return any(
        value in (_tag_values(member["not"], prop) or set())
        for prop, value in tags.items()
        if isinstance(value, str)
    )


def _one_of(index: Index, pointer: str, members: list[Any]) -> list[Problem]:
    for j in range(len(members)):
        for i in range(j):
            if not _exclusive(index, members[i], members[j]):
                return [
                    Problem(
                        pointer,
                        f"oneOf members {i} and {j} are not shown to exclude each other (by "
                        "type, const/enum values or a tag): the bindings decode the first "
                        "that fits and do not check that only one does; cannot be generated "
                        "(anyOf says either may match)",
                    )
                ]
    return []


# --- allOf ---------------------------------------------------------------------------------


def _is_object(index: Index, schema: object, depth: int = 0) -> bool:
    """An object schema, or a union of object schemas (a tagged union of objects)."""
    schema = follow(index, schema)
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return False
    if "$ref" in schema:
        return True  # a ref that does not resolve: check_refs reports it
    kind = schema.get("type")
    if kind in _JSON_TYPES or (isinstance(kind, list) and set(kind) <= _JSON_TYPES):
        return kind in ("object", ["object"])
    if kind is not None:
        return True  # not a type: a meta-schema error says so already
    if "properties" in schema:
        return True
    key = next((k for k in ("anyOf", "oneOf") if isinstance(schema.get(k), list)), None)
    return key is not None and all(_is_object(index, m, depth + 1) for m in schema[key])


def _all_of(index: Index, pointer: str, schema: dict[str, Any]) -> list[Problem]:
    members = schema["allOf"]
    beside = {k for k in schema if not k.startswith("x-")} - _ANNOTATIONS
    if len(members) == 1 and not beside:
        return []  # a wrapper: the member is the type
    own_type = schema.get("type")
    object_like = own_type == "object" or (own_type is None and "$ref" not in schema)
    if object_like and members and all(_is_object(index, m) for m in members):
        return []  # an object built from objects: base classes
    return [
        Problem(
            pointer,
            "allOf: only a single-member wrapper or an object made of object members is "
            f"held (here {len(members)} member(s) beside {sorted(beside) or 'nothing'}); "
            + _REFUSED,
        )
    ]
