"""Load an ACP JSON Schema document and report everything wrong with it.

This is the front door of every later command, so it reports *every* problem it can
find, each with an RFC 6901 pointer into the document and a message that says what is
wrong and what was expected.

Checks, in addition to JSON well-formedness:

* the document is a valid Draft 2020-12 schema (jsonschema's meta-schema validation);
* every ``$ref`` is local (``#...``) and resolves to a schema in the document;
* the ``x-`` keywords the generator reads are well typed (``x-deserialize-*`` booleans,
  ``x-method`` and ``x-side`` non-empty strings, in pairs) and no union offers the same
  method twice; an ``x-`` keyword or value it does not know is a *warning*: carried
  through, never a refusal (see ``Problem.warning``);
* definitions sit in ``$defs`` or in a root ``definitions`` (not both with one name), and
  each definition name gives a class name of its own (see ``class_names``);
* tagged unions (``anyOf``/``oneOf`` of objects carrying a ``const`` string tag) have
  distinct tags, and a ``discriminator.propertyName`` is defined and required by every
  variant;
* ``required`` does not name a property that ``additionalProperties: false`` forbids.

Duplicate JSON object keys are reported as problems (not as an unusable file): the
document still parses, last value wins, and the other checks are still worth running.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable
from typing import Any

# jsonschema ships without type information; the second code keeps mypy quiet
# if types-jsonschema gets installed later.
from jsonschema import Draft202012Validator  # type: ignore[import-untyped, unused-ignore]

from .class_names import colliding
from .method_roles import MethodRoles, definitions, read_method_roles
from .schema_problems import (
    MAX_REPR,
    Problem,
    SchemaError,
    errors,
    json_type,
    kind_of,
    short_json,
    warn,
)
from .schema_reading import MAX_JSON_DEPTH, parse_schema_bytes, parse_schema_file, read_schema_bytes
from .schema_refs import MAX_DEPTH, Index, check_cycles, check_refs, follow
from .schema_walk import (
    DECODING_KEYWORDS,
    SUBSCHEMA_KEYWORDS,
    SUBSCHEMA_LIST_KEYWORDS,
    SUBSCHEMA_MAP_KEYWORDS,
    escape,
    iter_subschemas,
)

# Re-exported: other modules import these from here (the walking helpers of `schema_walk`,
# and what moved to `schema_problems` and `schema_reading`).
__all__ = [
    "MAX_JSON_DEPTH",
    "SUBSCHEMA_KEYWORDS",
    "SUBSCHEMA_LIST_KEYWORDS",
    "SUBSCHEMA_MAP_KEYWORDS",
    "Problem",
    "SchemaError",
    "errors",
    "escape",
    "iter_subschemas",
    "json_type",
    "parse_schema_bytes",
    "parse_schema_file",
    "read_schema_bytes",
    "warn",
]

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"


# The sides ACP schemas have used so far. Any other non-empty string is accepted too (the
# generated `Side` type lists the sides a schema uses); a new one is only worth a warning.
KNOWN_SIDES = ("agent", "client", "protocol", "proxy")


def _is_name(value: object) -> bool:
    return isinstance(value, str) and value != ""


def _is_bool(value: object) -> bool:
    return isinstance(value, bool)


# Extension keywords the generator reads: a predicate on the value and how to describe what
# it wants. A bad value here would give wrong bindings, so it is an error.
X_KEYWORDS: dict[str, tuple[Callable[[object], bool], str]] = {
    **dict.fromkeys(DECODING_KEYWORDS, (_is_bool, "a boolean (true: on, false: off)")),
    "x-method": (_is_name, "a non-empty string"),
    "x-side": (_is_name, "a non-empty string"),
}
# Extension keywords known but not read by the generator: a surprising value is a warning.
X_INFORMATIONAL: dict[str, tuple[Callable[[object], bool], str]] = {
    "x-docs-ignore": (_is_bool, "a boolean"),
}


# --- public entry points ---------------------------------------------------------------


def check_schema_file(path: str | os.PathLike[str], *, warnings: bool = False) -> list[Problem]:
    """All problems of the schema file at *path*, sorted; with `warnings`, warnings too.

    Raises SchemaError(unusable=True) when the file cannot be read or is not JSON.
    """
    doc, problems = parse_schema_file(path)
    return sorted(set(problems + check_schema_document(doc, warnings=warnings)))


def load_schema(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Parse and check *path*; return the document, or raise SchemaError listing all."""
    doc, problems = parse_schema_file(path)
    problems = sorted(set(problems + check_schema_document(doc)))
    if problems:
        raise SchemaError(path, problems)
    assert isinstance(doc, dict)  # a non-object top level is a problem
    return doc


def check_schema_document(
    doc: object,
    *,
    meta_schema: bool = True,
    warnings: bool = False,
    roles: MethodRoles | None = None,
) -> list[Problem]:
    """All problems of an already parsed schema document, sorted; with `warnings`, the
    warnings too (`Problem.warning`).

    `meta_schema=False` leaves out the Draft 2020-12 meta-schema validation, nearly all of
    the cost on a large schema, for a caller that runs `meta_schema_problems` itself while
    it waits for other work (the generator does, beside datamodel-codegen). `roles` are
    the document's method roles when the caller has read them already (`LoadedSchema`).
    """
    if not isinstance(doc, dict):
        return [Problem("", f"top level must be a JSON object (a schema), got {kind_of(doc)}")]
    problems = _check_dialect(doc) + (_check_meta_schema(doc) if meta_schema else [])
    problems += _check_definitions(doc)
    subschemas = list(iter_subschemas(doc))
    index = Index(doc, subschemas)
    for pointer, schema in subschemas:
        problems += check_refs(index, pointer, schema)
        problems += _check_extensions(pointer, schema)
        problems += _check_unions(index, pointer, schema)
        problems += _check_required(pointer, schema)
    problems += check_cycles(index, subschemas)
    problems += _check_methods(read_method_roles(doc) if roles is None else roles)
    if not errors(problems):
        problems += _check_naming(doc)
    found = sorted(set(problems))
    return found if warnings else errors(found)


# --- Draft 2020-12 -----------------------------------------------------------------------


def _check_dialect(doc: dict[str, Any]) -> list[Problem]:
    dialect = doc.get("$schema", DRAFT_2020_12)
    if isinstance(dialect, str) and dialect.rstrip("#") == DRAFT_2020_12:
        return []
    return [Problem("/$schema", f"$schema must be {DRAFT_2020_12!r}, got {short_json(dialect)}")]


# check_schema() would stop at the best error; iterating the meta-schema validator
# (with the format checker, as check_schema does) gives all of them.
_META = Draft202012Validator(
    Draft202012Validator.META_SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER
)


def meta_schema_problems(doc: object) -> list[Problem]:
    """What the Draft 2020-12 meta-schema finds wrong with a parsed document, sorted."""
    return sorted(set(_check_meta_schema(doc))) if isinstance(doc, dict) else []


def _check_meta_schema(doc: dict[str, Any]) -> list[Problem]:
    out = []
    for error in _META.iter_errors(doc):
        pointer = "".join(f"/{escape(str(part))}" for part in error.absolute_path)
        message = _error_message(error)
        out.append(Problem(pointer, f"not a valid Draft 2020-12 schema: {message}"))
    return out


def _error_message(error: Any) -> str:
    # jsonschema renders the instance with repr(), which can be a whole definition.
    def shorten(err: Any) -> str:
        message = str(err.message)
        full = repr(err.instance)
        if len(full) > MAX_REPR:
            message = message.replace(full, full[: MAX_REPR - 3] + "...")
        return message

    message = shorten(error)
    if error.context:  # anyOf/oneOf: say what each alternative wanted
        alternatives = dict.fromkeys(shorten(e) for e in error.context)
        message += " (" + "; ".join(alternatives) + ")"
    return message


# --- x- keywords -------------------------------------------------------------------------


def _check_extensions(pointer: str, schema: dict[str, Any]) -> list[Problem]:
    out = []
    for key, value in schema.items():
        if not key.startswith("x-"):
            continue
        if key in X_INFORMATIONAL:
            valid, expected = X_INFORMATIONAL[key]
            if not valid(value):
                out.append(warn(pointer, f"{key} is usually {expected}, got {short_json(value)}"))
            continue
        if key not in X_KEYWORDS:
            known = [*X_KEYWORDS, *X_INFORMATIONAL]
            near = difflib.get_close_matches(key, known, n=1)
            hint = f"did you mean {near[0]!r}?" if near else "known: " + ", ".join(known)
            out.append(
                warn(pointer, f"unknown extension keyword {key!r}, carried through ({hint})")
            )
            continue
        valid, expected = X_KEYWORDS[key]
        if not valid(value):
            out.append(Problem(pointer, f"{key} must be {expected}, got {short_json(value)}"))
        elif key == "x-side" and value not in KNOWN_SIDES:
            out.append(
                warn(
                    pointer,
                    f"new x-side {value!r} (known: {', '.join(KNOWN_SIDES)}); "
                    "the generated Side type includes it",
                )
            )
    if schema.get("x-deserialize-skip-invalid-items") is True and not _allows_arrays(schema):
        out.append(
            Problem(
                pointer,
                "x-deserialize-skip-invalid-items only applies to array schemas "
                "(type 'array' or items), but this schema does not allow arrays",
            )
        )
    if "x-method" in schema and "x-side" not in schema:
        out.append(Problem(pointer, "x-method without x-side: say which side handles the method"))
    if "x-side" in schema and "x-method" not in schema:
        out.append(
            warn(pointer, "x-side without x-method: ignored (x-side only belongs on a method)")
        )
    return out


def _allows_arrays(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return (
        kind == "array"
        or (isinstance(kind, list) and "array" in kind)
        or "items" in schema
        or "prefixItems" in schema
    )


# --- definitions and methods -------------------------------------------------------------


def _check_definitions(doc: dict[str, Any]) -> list[Problem]:
    """Root `definitions` are read like `$defs`; each name must give a class of its own."""
    out = []
    seen: dict[str, str] = {}
    for key, name, _ in definitions(doc):
        if name in seen and seen[name] != key:
            out.append(
                Problem(f"/{key}/{escape(name)}", f"{name!r} is defined in both $defs and "
                "definitions: the bindings would have one class for two schemas")
            )  # fmt: skip
        seen.setdefault(name, key)
    for cls, names in sorted(colliding(dict.fromkeys(seen)).items()):
        listed = ", ".join(repr(n) for n in names)
        out.append(
            Problem(f"/{seen[names[0]]}", f"definitions {listed} would all become class "
            f"{cls!r} (see the class-name rule in docs/bindings.md); rename one")
        )  # fmt: skip
    return out


def _check_naming(doc: dict[str, Any]) -> list[Problem]:
    """What the pre-pass cannot name (two classes the naming rule gives one name): run it,
    on an otherwise clean schema, so `schema check` says it before `generate` does."""
    from .generate.prepass import NamingError, prepass  # the generator's own: only here

    try:
        prepass(doc)
    except NamingError as exc:
        return [Problem("", f"cannot be generated: {exc}")]
    except (LookupError, TypeError, ValueError, AttributeError) as exc:
        # A shape the pre-pass does not expect: `generate` would stop here too.
        return [Problem("", f"cannot be generated: the pre-pass failed ({exc!r:.120})")]
    return []


def _check_methods(roles: MethodRoles) -> list[Problem]:
    return [Problem(ptr, message, warning=not error) for ptr, message, error in roles.findings]


# --- unions ------------------------------------------------------------------------------


def _object_view(index: Index, schema: object) -> tuple[dict[str, Any], set[str]]:
    """Properties and required names of a variant, through $ref and allOf."""
    props: dict[str, Any] = {}
    required: set[str] = set()
    seen: set[int] = set()
    todo = [(schema, 0)]
    while todo:
        cur, depth = todo.pop()
        if not isinstance(cur, dict) or id(cur) in seen or depth > MAX_DEPTH:
            continue
        seen.add(id(cur))
        own = cur.get("properties")
        if isinstance(own, dict):
            for name, sub in own.items():
                props.setdefault(name, sub)  # the variant's own definition wins
        if isinstance(cur.get("required"), list):
            required.update(r for r in cur["required"] if isinstance(r, str))
        if isinstance(cur.get("$ref"), str):
            todo.append((follow(index, {"$ref": cur["$ref"]}), depth + 1))
        if isinstance(cur.get("allOf"), list):
            todo.extend((sub, depth + 1) for sub in reversed(cur["allOf"]))
    return props, required


def _method_of(index: Index, variant: object) -> tuple[str, str] | None:
    """(x-side, x-method) of the definition a variant stands for, if any."""
    for _ in range(MAX_DEPTH):
        variant = follow(index, variant)
        if not isinstance(variant, dict):
            return None
        method, side = variant.get("x-method"), variant.get("x-side")
        if isinstance(method, str):
            return (side if isinstance(side, str) else "?", method)
        wrapped = variant.get("allOf")
        if not (isinstance(wrapped, list) and len(wrapped) == 1):
            return None
        variant = wrapped[0]  # {"title": ..., "allOf": [{"$ref": ...}]}
    return None


def _check_unions(index: Index, pointer: str, schema: dict[str, Any]) -> list[Problem]:
    out: list[Problem] = []
    for keyword in ("anyOf", "oneOf"):
        variants = schema.get(keyword)
        if isinstance(variants, list):
            out += _check_union(index, pointer, keyword, variants)
    if "discriminator" in schema:
        out += _check_discriminator(index, pointer, schema)
    return out


def _check_union(index: Index, pointer: str, keyword: str, variants: list[Any]) -> list[Problem]:
    out = []
    tags: list[dict[str, str]] = []
    methods: dict[tuple[str, str], int] = {}
    for j, variant in enumerate(variants):
        props, _ = _object_view(index, variant)
        mine = {
            name: sub["const"]
            for name, sub in props.items()
            if isinstance(sub, dict) and isinstance(sub.get("const"), str)
        }
        # Variants collide when they share a tag property and agree on every shared one:
        # then no tag value can tell them apart.
        for i, theirs in enumerate(tags):
            shared = sorted(mine.keys() & theirs.keys())
            if shared and all(mine[k] == theirs[k] for k in shared):
                same = ", ".join(f"{k}={mine[k]!r}" for k in shared)
                out.append(
                    Problem(pointer, f"{keyword} variants {i} and {j} have the same tag {same}")
                )
                break
        tags.append(mine)
        method = _method_of(index, variant)
        if method is not None:
            if method in methods:
                side, name = method
                out.append(
                    Problem(
                        pointer,
                        f"{keyword} variants {methods[method]} and {j} both stand for "
                        f"x-method {name!r} (x-side {side!r})",
                    )
                )
            else:
                methods[method] = j
    return out


def _check_discriminator(index: Index, pointer: str, schema: dict[str, Any]) -> list[Problem]:
    discriminator = schema["discriminator"]
    name = discriminator.get("propertyName") if isinstance(discriminator, dict) else None
    if not isinstance(name, str):
        return [
            Problem(
                pointer,
                "discriminator must be an object with a string propertyName, got "
                + short_json(discriminator),
            )
        ]
    keyword = "oneOf" if isinstance(schema.get("oneOf"), list) else "anyOf"
    variants = schema.get(keyword)
    if not isinstance(variants, list):
        return [Problem(pointer, "discriminator without oneOf/anyOf: nothing to discriminate")]
    out = []
    for i, variant in enumerate(variants):
        props, required = _object_view(index, variant)
        if name not in props:
            missing = f"is not defined in {keyword} variant {i}"
        elif name not in required:
            missing = f"is not required by {keyword} variant {i}"
        else:
            continue
        out.append(Problem(pointer, f"discriminator property {name!r} {missing}"))
    return out


# --- required ----------------------------------------------------------------------------


def _check_required(pointer: str, schema: dict[str, Any]) -> list[Problem]:
    required = schema.get("required")
    if schema.get("additionalProperties") is not False or not isinstance(required, list):
        return []
    props = schema.get("properties")
    declared = props if isinstance(props, dict) else {}
    patterns = []
    raw_patterns = schema.get("patternProperties")
    for pattern in raw_patterns if isinstance(raw_patterns, dict) else ():
        try:
            patterns.append(re.compile(pattern))
        except re.error:
            continue  # the meta-schema format check reports bad patterns
    out = []
    for name in required:
        if not isinstance(name, str) or name in declared:
            continue
        if any(p.search(name) for p in patterns):
            continue
        out.append(
            Problem(
                pointer,
                f"required property {name!r} is not in properties and additionalProperties "
                "is false, so no object can be valid",
            )
        )
    return out
