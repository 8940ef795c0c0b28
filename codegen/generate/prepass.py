"""JSON-to-JSON pre-pass: give every class datamodel-code-generator will emit a chosen name.

datamodel-code-generator numbers the classes it makes for inline union variants
(`SessionUpdate1`, `ContentBlock7`, ...). The pre-pass hoists those variants into named
definitions first, so the generator only ever sees named classes, and records each tagged
union for the post-pass.

Naming rule for a tagged-union variant (documented in docs/bindings.md):

1. A variant that is nothing but the tag plus one referenced definition, which nothing
   else refers to, is that definition: the definition itself carries the tag
   (`session_message` -> `SessionMessage`, `text` -> `TextContent`).
2. Any other variant is named by its tag in PascalCase (`agent_message_chunk` ->
   `AgentMessageChunk`, a `ContentChunk` plus the tag).
3. If that name is taken by a definition, or the tag is a single word (`add`, `cancel`: too
   generic to stand alone), the variant is `<Union><Tag>`
   (`SessionUpdate` + `tool_call_update` -> `SessionUpdateToolCallUpdate`,
   `DiffChange` + `add` -> `DiffChangeAdd`).
4. The open "other" variant of a union (the one guarded by `not`) is `<Union>Other`.
5. A variant wrapping a union that is used elsewhere too gets a tagged copy of each member,
   named `<Union><Member>`.

Titled variants of untagged unions become `<Union><Title>`; a variant that only wraps a
`$ref` becomes that `$ref`. JSON-RPC envelopes become unions tagged by `method`
(`<Envelope><Method>`, `<Envelope>Other`), and objects whose alternatives only add
properties are folded into one class (`fold`). docs/bindings.md explains each choice.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

from datamodel_code_generator.util import camel_to_snake

from ..class_names import class_name, pascal
from ..schema_refs import DEFINITION_KEYS, Unresolvable, ref_target, resolve_ref
from ..schema_walk import iter_subschemas
from .value_rewrites import drop_property_defaults, drop_switched_off, rewrite_values

JSON = dict[str, Any]


class NamingError(ValueError):
    """The naming rule cannot give a definition a unique name. `within`: the class name of
    the definition whose part was being named, when known (schema check points at it)."""

    def __init__(self, message: str, within: str | None = None) -> None:
        super().__init__(message)
        self.within = within


@dataclass
class TaggedUnion:
    """A tagged union found by the pre-pass, as the post-pass needs it."""

    name: str
    tag_property: str  # wire name, e.g. "sessionUpdate"
    variants: dict[str, str] = field(default_factory=dict)  # tag -> class name
    other: str | None = None  # class name of the open variant, if the union is open

    @property
    def tag_field(self) -> str:
        """The Python field name of the tag (datamodel-code-generator's own snake_case)."""
        return camel_to_snake(self.tag_property)


@dataclass
class PrepassResult:
    schema: JSON
    unions: dict[str, TaggedUnion]


def _variant_tag(variant: Any) -> tuple[str, str] | None:
    """(tag property, tag value) of a variant that is an object with a required const."""
    if not isinstance(variant, dict):
        return None
    props = variant.get("properties")
    if not isinstance(props, dict):
        return None
    required = variant.get("required") or []
    for prop, sub in props.items():
        if isinstance(sub, dict) and isinstance(sub.get("const"), str) and prop in required:
            return prop, sub["const"]
    return None


def _is_other(variant: Any, tag_property: str) -> bool:
    return (
        isinstance(variant, dict)
        and "not" in variant
        and isinstance(variant.get("properties"), dict)
        and tag_property in variant["properties"]
    )


def _union_key(node: JSON) -> str | None:
    for key in ("oneOf", "anyOf"):
        if isinstance(node.get(key), list):
            return key
    return None


def _tagging(variants: list[Any], *, mixed: bool = False) -> str | None:
    """The tag property when the variants form a tagged union (open or closed).

    With `mixed`, plain `$ref` variants may stand beside the tagged ones (an untagged
    fallback shape); such a union still gets its tagged variants named but is decoded as
    a plain union.
    """
    tags = [_variant_tag(v) for v in variants]
    props = {t[0] for t in tags if t}
    if len(props) != 1:
        return None
    (prop,) = props
    tagged = sum(1 for t in tags if t)
    others = [v for v, t in zip(variants, tags, strict=True) if not t]
    refs = [v for v in others if _plain_ref(v)] if mixed else []
    opens = [v for v in others if _is_other(v, prop)]
    if tagged < 1 or len(opens) > 1 or len(refs) + len(opens) != len(others):
        return None
    if tagged + len(refs) + len(opens) < 2:
        return None
    return prop


def folds(node: JSON) -> bool:
    """Whether an object's `anyOf`/`oneOf` alternatives are folded into its one class (see
    `fold`): it declares properties, and the alternatives are no tagged union on a property
    the object does not declare. `schema check` warns about it (check_enforcement)."""
    key = _union_key(node)
    if key is None or not node.get("properties"):
        return False
    tag_property = _tagging(node[key], mixed=True)
    return tag_property is None or tag_property in node["properties"]


def _plain_ref(variant: Any) -> str | None:
    """The definition an untagged variant stands for: `{$ref}` or a titled `allOf` wrapper."""
    if not isinstance(variant, dict):
        return None
    if set(variant) == {"$ref"}:
        return _ref_name(variant["$ref"])
    return _sole_ref(variant, {"title", "description"})


# Every string `format` stays plain `str`. The types pydantic has for them rewrite values
# (AnyUrl: `http://a` comes back as `http://a/`; UUID, datetime: normalised on re-encode)
# or need extra packages (email: email-validator), so a decoded message would not encode to
# the JSON it came from; none validates a string exactly and gives it back unchanged. Only
# the formats of numbers (`int64`, `uint16`, `double`, ...) reach the generator: they keep
# int and float.
NUMBER_TYPES = frozenset({"integer", "number", "null"})
# The string formats ACP schemas have used, for the diff's notes (every string format is
# kept as str, these are just the ones seen so far).
TEXT_FORMATS = frozenset({"uri", "date-time", "regex", "email", "uuid", "date", "time"})


def keeps_format(node: JSON) -> bool:
    """Whether the generator sees this node's `format`: only on a number-only schema."""
    kind = node.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind}
    return bool(kinds) and kinds <= NUMBER_TYPES and kinds != {"null"}


def _drop_text_formats(schema: JSON) -> None:
    for _, node in list(iter_subschemas(schema)):
        if "format" in node and not keeps_format(node):
            del node["format"]


def _rewrite_refs(node: Any, renamed: dict[tuple[str, str], str]) -> None:
    """Every ref to a definition in one spelling, `#/$defs/<ClassName>` (also when the
    original spelt it with percent or `~` escapes)."""
    if isinstance(node, dict):
        target = ref_target(node.get("$ref"))
        if target is not None and target in renamed:
            node["$ref"] = f"#/$defs/{renamed[target]}"
        for value in node.values():
            _rewrite_refs(value, renamed)
    elif isinstance(node, list):
        for value in node:
            _rewrite_refs(value, renamed)


def _normalise_definitions(schema: JSON) -> None:
    """Every definition under `$defs`, named by its class name (`class_names.class_name`):
    root `definitions` move there, names that are no plain class name are mangled, and
    every `$ref` follows. The checks have made sure no two definitions meet."""
    merged: JSON = {}
    renamed: dict[tuple[str, str], str] = {}
    for key in DEFINITION_KEYS:
        container = schema.get(key)
        if not isinstance(container, dict):
            continue
        for name, body in container.items():
            new = class_name(name)
            if new in merged:
                raise NamingError(f"definitions {name!r} and another both become class {new!r}")
            merged[new] = body
            renamed[(key, name)] = new
    schema.pop("definitions", None)
    schema["$defs"] = merged  # in place of the old `$defs`, when there was one
    _rewrite_refs(schema, renamed)


# The value range of each integer `format` the ACP schemas use (Rust integer types). The
# pre-pass writes it as `minimum`/`maximum`, so the bindings check it like any bound.
INTEGER_FORMATS: dict[str, tuple[int, int]] = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
}


def _bound_integer_formats(schema: JSON) -> None:
    for pointer, node in list(iter_subschemas(schema)):
        kinds = node.get("type")
        if "integer" not in (kinds if isinstance(kinds, list) else [kinds]) or "const" in node:
            continue
        # A bounded alternative of a union would become a numbered class of its own
        # (`RequestId1`); those few (a JSON-RPC request ID) keep their format unchecked.
        if re.search(r"/(anyOf|oneOf)/\d+$", pointer):
            continue
        fmt = node.get("format")
        bounds = INTEGER_FORMATS.get(fmt) if isinstance(fmt, str) else None
        if bounds is None:
            continue
        low, high = bounds
        if not isinstance(node.get("minimum"), (int, float)) or node["minimum"] < low:
            node["minimum"] = low
        if not isinstance(node.get("maximum"), (int, float)) or node["maximum"] > high:
            node["maximum"] = high


def _params_variants(params: Any) -> list[str]:
    """The definitions an envelope's `params` may be: `anyOf: [{anyOf: [wrapped refs]}, null]`."""
    if not isinstance(params, dict):
        return []
    refs: list[str] = []
    for option in params.get("anyOf", []):
        for variant in option.get("anyOf", [option]) if isinstance(option, dict) else []:
            ref = _plain_ref(variant)
            if ref is not None:
                refs.append(ref)
    return refs


def _constrained_array(variant: JSON) -> bool:
    """An array variant with constraints (`minItems`, ...): the generator gives it an alias
    of its own, which would be numbered; a plain `list[X]` stays inline."""
    return variant.get("type") == "array" and bool(
        set(variant) - {"title", "description", "type", "items"}
    )


def _ref_name(ref: object) -> str | None:
    """The definition a ref stands for (`#/$defs/<ClassName>` once the definitions are
    normalised); None for a ref to anything else: the root, a pointer into a definition."""
    target = ref_target(ref)
    return target[1] if target is not None and target[0] == "$defs" else None


def _made_ref_name(ref: dict[str, str]) -> str:
    """The definition of a `{$ref}` the pre-pass wrote itself."""
    name = _ref_name(ref["$ref"])
    assert name is not None
    return name


def _count_refs(node: Any, counts: dict[str, int]) -> None:
    if isinstance(node, dict):
        name = _ref_name(node.get("$ref"))
        if name is not None:
            counts[name] = counts.get(name, 0) + 1
        for value in node.values():
            _count_refs(value, counts)
    elif isinstance(node, list):
        for value in node:
            _count_refs(value, counts)


def _sole_ref(variant: JSON, ignore: set[str]) -> str | None:
    """The definition a variant wraps, when it is only `allOf: [{$ref}]` plus `ignore` keys."""
    all_of = variant.get("allOf")
    if not (isinstance(all_of, list) and len(all_of) == 1 and set(all_of[0]) == {"$ref"}):
        return None
    if set(variant) - ignore - {"allOf"}:
        return None
    return _ref_name(all_of[0]["$ref"])


class _Prepass:
    def __init__(self, schema: JSON) -> None:
        self.schema = copy.deepcopy(schema)
        _normalise_definitions(self.schema)
        self.defs: JSON = self.schema["$defs"]
        self.unions: dict[str, TaggedUnion] = {}
        self.ref_counts: dict[str, int] = {}
        self.visited: set[str] = set()
        self.visiting: list[str] = []  # the definitions being named, innermost last
        self.schema_names = frozenset(self.defs)
        _count_refs(self.schema, self.ref_counts)

    def target(self, ref: object) -> object:
        """What a ref points to (any JSON pointer: `#`, into a definition), or None."""
        try:
            return resolve_ref(self.schema, ref) if isinstance(ref, str) else None
        except Unresolvable:
            return None

    def add_def(self, name: str, body: JSON) -> dict[str, str]:
        if name in self.defs:
            within = self.visiting[-1] if self.visiting else None
            taken = "a definition of the schema" if name in self.schema_names else "another part"
            raise NamingError(
                f"the naming rule gives a part of {within or 'the schema'} the class name "
                f"{name!r}, which {taken} has already (a union variant is named <Union><Tag> "
                "or <Union><Title>, a property's union <Class><Property>)",
                within,
            )
        self.defs[name] = body
        self.ref_counts[name] = 1  # made for the one place it replaces
        self.visit_def(name)
        return {"$ref": f"#/$defs/{name}"}

    def run(self) -> PrepassResult:
        _drop_text_formats(self.schema)
        drop_switched_off(self.schema)
        _bound_integer_formats(self.schema)
        drop_property_defaults(self.schema)
        rewrite_values(self.schema)
        for name in list(self.defs):
            self.dispatch_by_method(name)
        for name in list(self.defs):
            self.visit_def(name)
        return PrepassResult(self.schema, self.unions)

    def dispatch_by_method(self, name: str) -> None:
        """A JSON-RPC envelope (`method` plus "one of these params") becomes a union tagged
        by `method`: one class per method whose params definition names it in `x-method`,
        and `<Envelope>Other` for extension methods.

        The schema only says "params is one of these"; decoded that way, params would be
        matched by shape whatever the method says, and a message for one method could
        decode as the params of another.
        """
        node = self.defs[name]
        props = node.get("properties") if isinstance(node, dict) else None
        if not isinstance(props, dict) or not isinstance(props.get("method"), dict):
            return
        if props["method"].get("type") != "string":
            return
        params = _params_variants(props.get("params"))
        known = {
            ref: self.defs[ref]["x-method"]
            for ref in params
            if isinstance(self.defs.get(ref), dict) and "x-method" in self.defs[ref]
        }
        if not known:
            return
        union = TaggedUnion(name, "method")
        shared = {k: v for k, v in props.items() if k not in ("method", "params")}
        required = [r for r in node.get("required", []) if r != "method"]
        members = []
        for ref in [r for r in params if r in known]:
            method = {"type": "string", "const": known[ref], "default": known[ref]}
            body = self.envelope(shared, method, [ref], required)
            body["description"] = f"A `{known[ref]}` message; its params are `{ref}`."
            variant = name + pascal(known[ref])
            union.variants[known[ref]] = variant
            self.defs[variant] = body  # named by method: distinct, and new (checked below)
            members.append({"$ref": f"#/$defs/{variant}"})
        # Any other method: its params are whatever the envelope allowed that no method
        # claims (an extension's object), or, without one, any of the envelope's params.
        extension = [r for r in params if r not in known]
        union.other = name + "Other"
        body = self.envelope(shared, {"type": "string"}, extension or params, [*required, "method"])
        body["description"] = (
            "A message for a method this schema does not define (an extension); "
            + (
                "its params are kept as sent."
                if extension
                else "its params take any shape the envelope allows."
            )
        )
        self.defs[union.other] = body
        members.append({"$ref": f"#/$defs/{union.other}"})
        if len(set(union.variants.values())) != len(known):
            raise NamingError(f"{name}: two params definitions declare the same x-method")
        self.defs[name] = {"description": node.get("description", ""), "anyOf": members}
        self.visited.add(name)
        self.unions[name] = union

    @staticmethod
    def envelope(shared: JSON, method: JSON, params_refs: list[str], required: list[str]) -> JSON:
        refs = [{"$ref": f"#/$defs/{ref}"} for ref in params_refs]
        params = {"anyOf": [*refs, {"type": "null"}]}
        return {
            "type": "object",
            "properties": {**shared, "method": method, "params": params},
            "required": required,
        }

    def visit_def(self, name: str) -> None:
        # A variant may wrap a union defined later; visiting on demand keeps the order free.
        if name in self.visited:
            return
        self.visited.add(name)
        self.visiting.append(name)
        try:
            self._visit_def(name)
        finally:
            self.visiting.pop()

    def _visit_def(self, name: str) -> None:
        node = self.defs[name]
        if not isinstance(node, dict):
            return
        key = _union_key(node)
        if key is not None:
            self.name_union(name, node, key)
        for prop, sub in list((node.get("properties") or {}).items()):
            sub_key = _union_key(sub) if isinstance(sub, dict) else None
            if sub_key and _tagging(sub[sub_key], mixed=True):
                # A tagged union inside a property becomes a definition of its own.
                node["properties"][prop] = self.add_def(name + pascal(prop), sub)

    def name_union(self, name: str, node: JSON, key: str) -> None:
        variants: list[Any] = node[key]
        tag_property = _tagging(variants, mixed=True)
        if folds(node):
            self.fold(node, key)
            return
        if tag_property is None:
            self.name_untagged(name, node, key)
            return
        node.pop("discriminator", None)  # the post-pass writes the union itself
        union = TaggedUnion(name, tag_property)
        decode_by_tag = _tagging(variants) is not None  # no untagged fallback shapes
        for index, variant in enumerate(variants):
            tag = _variant_tag(variant)
            plain = _plain_ref(variant)
            if tag is None and plain is not None:
                variants[index] = {"$ref": f"#/$defs/{plain}"}
            elif tag is None:
                other = {k: v for k, v in variant.items() if k not in ("not", "title")}
                union.other = name + "Other"
                variants[index] = self.add_def(union.other, other)
            else:
                variants[index] = self.name_variant(
                    name, variant, tag[1], tag_property, tag_default=decode_by_tag
                )
                union.variants[tag[1]] = _made_ref_name(variants[index])
        if decode_by_tag:
            self.unions[name] = union
        if node.get("properties"):
            self.push_down_properties(node, key)

    def fold(self, node: JSON, key: str) -> None:
        """One class for an object whose alternatives only add optional-looking properties.

        The object declares its own properties and its `anyOf`/`oneOf` alternatives either
        restrict one of them (a stop reason's consts) or add a few (a request or session
        scope). Python gets one class with every property, the alternatives' ones optional;
        which combinations are valid stays the schema's business.
        """
        declared: JSON = node["properties"]
        own = set(declared)
        added: dict[str, list[Any]] = {}
        for variant in node.pop(key):
            if not isinstance(variant, dict):
                continue
            refs = [r["$ref"] for r in variant.get("allOf", []) if "$ref" in r]
            refs += [variant["$ref"]] if "$ref" in variant else []
            sources = [variant, *(self.target(ref) for ref in refs)]
            for source in [s for s in sources if isinstance(s, dict)]:
                for prop, sub in (source.get("properties") or {}).items():
                    if prop not in own and sub not in added.setdefault(prop, []):
                        added[prop].append(sub)
        # The object's own declaration of a property wins; a property that alternatives
        # declare differently (a boolean here, an ID there) takes any of their types.
        for prop, subs in added.items():
            declared[prop] = subs[0] if len(subs) == 1 else {"anyOf": subs}
        node.pop("discriminator", None)

    def push_down_properties(self, node: JSON, key: str) -> None:
        """Copy the properties an object shares with all its union variants into each one.

        datamodel-code-generator would otherwise emit one numbered class per variant.
        """
        shared = {k: node.pop(k) for k in ("properties", "required") if k in node}
        node.pop("type", None)
        for variant in node[key]:
            body = self.defs[_made_ref_name(variant)]
            body["properties"] = {**shared.get("properties", {}), **body.get("properties", {})}
            body["required"] = [*shared.get("required", []), *body.get("required", [])]

    def name_variant(
        self, union: str, variant: JSON, tag: str, prop: str, *, tag_default: bool
    ) -> dict[str, str]:
        variant = copy.deepcopy(variant)
        tag_schema = variant["properties"][prop]
        if tag_default:
            # A default (and not `required`, which would make the generator drop it) lets
            # users leave the tag out; it is still always encoded, and the union still
            # dispatches on it. Not for a union with an untagged fallback shape: there only
            # the tag tells a variant from the fallback, so it stays required.
            tag_schema["default"] = tag
            variant["required"] = [r for r in variant.get("required", []) if r != prop]
        base = _sole_ref(variant, {"type", "properties", "required", "description", "title"})
        only_tag = set(variant["properties"]) == {prop}
        wanted = pascal(tag)
        single_word = len(re.findall(r"[A-Z][a-z0-9]*", wanted)) < 2
        name = union + wanted if single_word or wanted in self.defs else wanted
        if base is not None and only_tag and isinstance(self.defs.get(base), dict):
            self.visit_def(base)
            inner = self.unions.get(base)
            if inner is not None and self.ref_counts.get(base, 0) > 1:
                return self.tagged_copy(union, name, inner, prop, tag_schema)
            if self.ref_counts.get(base, 0) == 1:
                members = self.union_members(base)
                for member in members or [base]:
                    target = self.defs[member]
                    target["properties"] = {prop: tag_schema, **target.get("properties", {})}
                    if not tag_default:
                        target["required"] = [prop, *target.get("required", [])]
                if members is not None or "properties" in self.defs[base]:
                    return {"$ref": f"#/$defs/{base}"}
        variant.pop("title", None)
        return self.add_def(name, variant)

    def tagged_copy(
        self, union: str, name: str, inner: TaggedUnion, prop: str, tag_schema: JSON
    ) -> dict[str, str]:
        """A variant wrapping a union that is used elsewhere too: the variant becomes a copy
        of that union whose members (named `<Union><Member>`) also carry this tag."""
        copy_union = TaggedUnion(name, inner.tag_property)
        refs = []
        for tag, member in [*inner.variants.items(), (None, inner.other)]:
            if member is None:
                continue
            body = copy.deepcopy(self.defs[member])
            body["properties"] = {prop: tag_schema, **body.get("properties", {})}
            refs.append(self.add_def(union + member, body))
            if tag is None:
                copy_union.other = union + member
            else:
                copy_union.variants[tag] = union + member
        self.defs[name] = {"anyOf": refs}
        self.visited.add(name)
        self.unions[name] = copy_union
        return {"$ref": f"#/$defs/{name}"}

    def union_members(self, name: str) -> list[str] | None:
        """The member definitions of a union used only here, so they can all take a tag."""
        node = self.defs[name]
        key = _union_key(node) if isinstance(node, dict) else None
        if key is None or node.get("properties"):
            return None
        members = [_plain_ref(v) for v in node[key]]
        if not all(
            m is not None and self.ref_counts.get(m, 0) == 1 and isinstance(self.defs.get(m), dict)
            for m in members
        ):
            return None
        return [m for m in members if m is not None]

    def name_untagged(self, name: str, node: JSON, key: str) -> None:
        for index, variant in enumerate(node[key]):
            if not isinstance(variant, dict):
                continue
            base = _sole_ref(variant, {"title", "description"})
            if base is not None:
                node[key][index] = {"$ref": f"#/$defs/{base}"}
            elif isinstance(variant.get("title"), str) and (
                variant.get("type") == "object"
                or "allOf" in variant
                or "properties" in variant
                or _constrained_array(variant)
            ):
                body = {k: v for k, v in variant.items() if k != "title"}
                node[key][index] = self.add_def(name + pascal(variant["title"]), body)


def prepass(schema: JSON) -> PrepassResult:
    """Return a copy of `schema` with every generated class named, and its tagged unions."""
    return _Prepass(schema).run()
