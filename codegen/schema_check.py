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
* ``required`` does not name a property that ``additionalProperties: false`` forbids;
* nothing the bindings cannot hold faithfully: a ``pattern`` that pydantic's linear-time
  regex engine refuses, an ``enum``/``const`` value with no Python literal
  (``schema_generation``); a keyword the bindings would drop (``uniqueItems``, ``not``, a
  ``oneOf`` not shown exclusive, ...: ``schema_generation``); definitions nested deeper
  than the bindings build (``schema_refs.check_depth``).

Duplicate JSON object keys are reported as problems (not as an unusable file): the
document still parses, last value wins, and the other checks are still worth running.

This module holds the entry points and the whole-document checks (Draft 2020-12,
definition names, method roles); the rest lives beside it, one concern a module:
`schema_problems` (`Problem`, `SchemaError`), `schema_reading` (bytes and strict JSON),
`schema_refs` (`$ref` resolution, self-references) and `schema_keyword_checks` (``x-``
keywords, unions, ``required``). Import all of it from here.
"""

from __future__ import annotations

import os
from typing import Any

# jsonschema ships without type information; the second code keeps mypy quiet
# if types-jsonschema gets installed later.
from jsonschema import (  # type: ignore[import-untyped, unused-ignore]
    Draft202012Validator,
    FormatChecker,
)

from .class_names import class_name, colliding
from .method_roles import MethodRoles, definitions, read_method_roles
from .schema_generation import check_enforcement, check_generation
from .schema_keyword_checks import (
    KNOWN_SIDES,
    X_INFORMATIONAL,
    X_KEYWORDS,
    check_extensions,
    check_required,
    check_unions,
)
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
from .schema_refs import Index, check_cycles, check_depth, check_refs
from .schema_walk import (
    SUBSCHEMA_KEYWORDS,
    SUBSCHEMA_LIST_KEYWORDS,
    SUBSCHEMA_MAP_KEYWORDS,
    escape,
    iter_subschemas,
)

# Every public name of the checks, wherever it lives: other modules and the tests import
# them from here (the walking helpers of `schema_walk` too).
__all__ = [
    "DRAFT_2020_12",
    "KNOWN_SIDES",
    "MAX_JSON_DEPTH",
    "SUBSCHEMA_KEYWORDS",
    "SUBSCHEMA_LIST_KEYWORDS",
    "SUBSCHEMA_MAP_KEYWORDS",
    "X_INFORMATIONAL",
    "X_KEYWORDS",
    "Problem",
    "SchemaError",
    "check_schema_document",
    "check_schema_file",
    "errors",
    "escape",
    "iter_subschemas",
    "json_type",
    "load_schema",
    "meta_schema_problems",
    "parse_schema_bytes",
    "parse_schema_file",
    "read_schema_bytes",
    "warn",
]

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"


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
        problems += check_extensions(pointer, schema)
        problems += check_unions(index, pointer, schema)
        problems += check_required(pointer, schema)
        problems += check_generation(pointer, schema)
    problems += check_enforcement(index, subschemas)
    problems += check_depth(doc)
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
# (with the format checker, as check_schema does) gives all of them. Its `regex` format is
# Python's `re`, neither ECMA-262 nor the engine the bindings use: `^\p{L}+$` was refused
# as "not a 'regex'" (and `re` printed FutureWarnings); every `pattern` and
# `patternProperties` key is judged by the bindings' own engine instead (schema_generation).
_FORMATS = FormatChecker(
    [name for name in Draft202012Validator.FORMAT_CHECKER.checkers if name != "regex"]
)
_META = Draft202012Validator(Draft202012Validator.META_SCHEMA, format_checker=_FORMATS)


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
        return [Problem(_pointer_of_class(doc, exc.within), f"cannot be generated: {exc}")]
    except (LookupError, TypeError, ValueError, AttributeError) as exc:
        # A shape the pre-pass does not expect: `generate` would stop here too.
        return [Problem("", f"cannot be generated: the pre-pass failed ({exc!r:.120})")]
    return []


def _pointer_of_class(doc: dict[str, Any], cls: str | None) -> str:
    """The pointer of the definition whose class name is `cls` ("" when none is)."""
    for key, name, _ in definitions(doc):
        if cls is not None and class_name(name) == cls:
            return f"/{key}/{escape(name)}"
    return ""


def _check_methods(roles: MethodRoles) -> list[Problem]:
    return [Problem(ptr, message, warning=not error) for ptr, message, error in roles.findings]
