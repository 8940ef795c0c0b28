"""What of the OLD bindings each change of a schema diff touches: a class, one of its
fields, a tag on the wire, a method name; and how a use of it is judged (`Rule`).

A change sits at a definition and a place inside it (`ToolCallLocation.line`,
`RequestPermissionOutcome.<outcome=cancelled>`, `AuthMethod.<other>.description`). The
class is found through the generator's own naming: a definition's class (`class_name`),
or the class the naming pre-pass hoists out of a union (`diff_bindings.binding_homes`,
read backwards); the field is the property right after that class's place, named as the
generator names it (snake_case, `_meta` -> `meta`).
"""

from __future__ import annotations

import json
import keyword
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from ...class_names import class_name
from ..diff_bindings import binding_homes
from ..diff_verdicts import COMPATIBLE, DEFAULT_ON_ERROR, LOWER_BOUNDS, UPPER_BOUNDS
from ..schema_diff import ROOT, Change
from ..schema_views import join_location, keyed_members, ref_name, ref_of, split_null

Rule = Literal[
    "gone",  # the class is no longer generated
    "not-a-class",  # the class became a union alias: calls and isinstance fail
    "field-gone",  # the property was removed
    "field-required",  # constructors must now pass it
    "bound",  # a new or narrower bound; literals are checked
    "not-null",  # null is no longer accepted
    "reads",  # reads may now see other values (null, another type)
    "value",  # what the field or class takes changed
    "wire",  # only the wire breaks
]
ChangeClass = Literal["api", "wire"]
ADDITIONS = frozenset({"variant-added", "enum-value-added"})


@dataclass(frozen=True)
class Target:
    """One change as the code can meet it."""

    change: Change
    rule: Rule
    change_class: ChangeClass
    cls: str  # the class name in the OLD bindings
    field: str | None = None  # its Python name
    wire: str | None = None  # its wire name
    items: bool = False  # the change is on the field's items, not the field
    bound: tuple[str, Any] | None = None  # (keyword, NEW value) for "bound"
    lenient: bool = False  # NEW drops a failing value here (default-on-error)

    @property
    def where(self) -> str:
        return self.change.where


@dataclass(frozen=True)
class ChainTarget:
    """A union or an enum that gains a member: the chains over its OLD members are noted."""

    change: Change
    classes: frozenset[str] = frozenset()  # member classes (a union)
    values: frozenset[str] = frozenset()  # member values (an enum of strings)


@dataclass
class Targets:
    targets: list[Target]
    chains: list[ChainTarget]
    # (tag property's Python name, wire name, tag value) -> class, for dicts and JSON text
    tags: dict[tuple[str, str], str]
    methods: dict[str, Change]  # JSON-RPC method names removed or changed

    def classes(self) -> set[str]:
        found = {t.cls for t in self.targets}
        for chain in self.chains:
            found |= chain.classes
        return found

    def fields(self) -> set[str]:
        return {n for t in self.targets for n in (t.field, t.wire) if n}


def python_field(wire: str) -> str:
    """The field name the generator gives property `wire` (--snake-case-field,
    --remove-special-field-name-prefix; a keyword gets `_` appended)."""
    from datamodel_code_generator.util import camel_to_snake

    name = str(camel_to_snake(wire)).lstrip("_")
    return name + "_" if keyword.iskeyword(name) else name


def steps(location: str) -> list[tuple[str, int]]:
    """The steps of a location, each with where it ends: `<title:Error>.id` ->
    [("<title:Error>", 13), ("id", 16)]; `content[]` -> [("content", 7), ("[]", 9)]."""
    out: list[tuple[str, int]] = []
    start = depth = 0
    for index, char in enumerate(location):
        if char == "<":
            if depth == 0 and index > start:
                out.append((location[start:index], index))
            if depth == 0:
                start = index
            depth += 1
        elif char == ">" and depth:
            depth -= 1
            if depth == 0:
                out.append((location[start : index + 1], index + 1))
                start = index + 1
        elif depth == 0 and char in ".[":
            if index > start:
                out.append((location[start:index], index))
            if char == "[" and location[index : index + 2] == "[]":
                out.append(("[]", index + 2))
            start = index + (2 if char == "[" else 1)
    if start < len(location):
        out.append((location[start:], len(location)))
    return [(s, e) for s, e in out if s and s != "]"]


class _Homes:
    """(definition, location) -> class name in the OLD bindings."""

    def __init__(self, doc: Mapping[str, Any]) -> None:
        defs = doc.get("$defs") or doc.get("definitions") or {}
        self.defs: Mapping[str, Any] = defs if isinstance(defs, dict) else {}
        self.homes: dict[tuple[str, str], str] = {(d, ""): class_name(d) for d in self.defs}
        found = binding_homes(doc, [], "OLD")
        if found is not None:
            for cls, home in sorted(found[1].items()):
                self.homes.setdefault(home, cls)

    def split(self, definition: str, location: str) -> tuple[str, list[str]] | None:
        """The class at the deepest place of `location` that has one, and the steps after."""
        parts = steps(location)
        for count in range(len(parts), -1, -1):
            prefix = location[: parts[count - 1][1]] if count else ""
            cls = self.homes.get((definition, prefix))
            if cls is not None:
                return cls, [s for s, _ in parts[count:]]
        return None

    def node(self, definition: str, location: str, follow: bool = True) -> Any:
        """The schema at a place, following references (None where it has none); with
        `follow` false, the place's own node (where its keywords are written)."""
        node: Any = self.defs.get(definition)
        for step, _ in steps(location):
            node = self._through(node)
            if not isinstance(node, dict):
                return None
            if step == "[]":
                node = node.get("items")
            elif step.startswith("<"):
                node = _members(node).get(step[1:-1])
            else:
                properties = node.get("properties")
                node = properties.get(step) if isinstance(properties, dict) else None
        return self._through(node) if follow else node

    def lenient(self, definition: str, location: str) -> bool:
        """Whether a value that fails at this place decodes as omitted
        (`x-deserialize-default-on-error`): a constructor then drops it, never fails."""
        node = self.node(definition, location, follow=False)
        return isinstance(node, dict) and node.get(DEFAULT_ON_ERROR) is True

    def _through(self, node: Any, hops: int = 0) -> Any:
        """Follow references, and the nullable wrapper `anyOf: [X, null]`, to X."""
        while isinstance(node, dict) and hops < 32:
            nullable, core = split_null(node)
            if nullable and core != node:
                node, hops = core, hops + 1
                continue
            ref = ref_of(node)
            if ref is None:
                return node
            node, hops = self.defs.get(ref_name(ref)), hops + 1
        return node

    def nullable_at(self, definition: str, location: str) -> bool:
        """Whether the place itself (not what it refers to) admits null."""
        return split_null(self.node(definition, location, follow=False) or {})[0]

    def member_classes(self, definition: str, location: str) -> frozenset[str]:
        """The classes of the members of the union at a place."""
        node = self.node(definition, location)
        out = set()
        for key, member in _members(node).items():
            ref = ref_of(member) if isinstance(member, dict) else None
            if ref is not None:
                out.add(class_name(ref_name(ref)))
            elif (definition, f"{location}<{key}>") in self.homes:
                out.add(self.homes[(definition, f"{location}<{key}>")])
        return frozenset(out)

    def member_values(self, definition: str, location: str) -> frozenset[str]:
        node = self.node(definition, location)
        if not isinstance(node, dict):
            return frozenset()
        values = [v for v in node.get("enum") or [] if isinstance(v, str)]
        for member in _members(node).values():
            if isinstance(member, dict) and isinstance(member.get("const"), str):
                values.append(member["const"])
        return frozenset(values)


def _members(node: Any) -> dict[str, Any]:
    if not isinstance(node, dict):
        return {}
    _, core = split_null(node)
    for key in ("anyOf", "oneOf"):
        members = core.get(key)
        if isinstance(members, list):
            return keyed_members([m for m in members if m != {"type": "null"}])
    return {}


def build_targets(
    changes: Sequence[Change], old: Mapping[str, Any], new: Mapping[str, Any]
) -> Targets:
    """The targets of the changes that break the API or the wire, and the chain targets
    of additions to unions and enums."""
    homes = _Homes(old)
    new_homes = _Homes(new)
    out = Targets([], [], _tags(old), {})
    for change in spread(changes, homes):
        if change.kind in ADDITIONS:
            parent = _parent(change.location)
            out.chains.append(
                ChainTarget(
                    change,
                    homes.member_classes(change.definition, parent),
                    homes.member_values(change.definition, parent),
                )
            )
            continue
        change_class = _class_of(change)
        if change_class is None:
            continue
        if change.kind.startswith("method-") and change.old:
            out.methods[change.old.split(" ", 1)[0]] = change
        if change.definition == ROOT or _same_class_kind(change, homes, new_homes):
            continue
        target = _target(change, change_class, homes, new_homes)
        if target is not None:
            out.targets.append(target)
    # A class that is gone is met first where it is named: its other class-level
    # changes say nothing more.
    gone = {t.cls for t in out.targets if t.rule == "gone"}
    out.targets = [t for t in out.targets if t.rule == "gone" or t.cls not in gone]
    return out


def spread(changes: Sequence[Change], homes: _Homes) -> list[Change]:
    """The changes, and each again at every place of the OLD schema that meets it
    through a reference: a change of a definition that is no class (`RequestId` loses
    null) at every field that refers to it; the changes the diff lists once behind a
    reference switch (`ref-changed` ... "as at") at every place that makes the switch."""
    out = list(changes)
    known = {(c.definition, c.location, c.kind) for c in changes}

    def add(change: Change, definition: str, location: str, how: str) -> None:
        if (definition, location, change.kind) in known:
            return
        known.add((definition, location, change.kind))
        note = "; ".join(n for n in (change.note, how) if n)
        out.append(replace(change, definition=definition, location=location, note=note))

    for switch in changes:
        if switch.same_as is None:
            continue
        first_definition, first_location = switch.same_as
        for change in changes:
            rest = _below(change.location, first_location)
            if change.definition == first_definition and rest is not None and change != switch:
                how = f"as at {change.where}"
                add(change, switch.definition, join_location(switch.location, rest), how)
    referrers = _Referrers(homes)
    # A place that refers elsewhere in NEW was compared on its own, both sides seen.
    switched = [(c.definition, c.location) for c in changes if c.kind == "ref-changed"]
    for change in list(out):
        if change.kind in ("definition-removed", "definition-added", "binding-removed"):
            continue
        for definition, location in referrers.of(change.definition):
            if change.kind == "nullable-removed" and homes.nullable_at(definition, location):
                continue  # the place adds null of its own: None still passes there
            if any(d == definition and _below(location, at) is not None for d, at in switched):
                continue
            how = f"through {change.definition}"
            add(change, definition, join_location(location, change.location), how)
    return out


def _below(location: str, prefix: str) -> str | None:
    """What follows `prefix` in `location` (`""` when equal), None when not below it."""
    if location == prefix or not prefix:
        return location[len(prefix) :]
    if location.startswith(prefix) and location[len(prefix)] in ".<[":
        return location[len(prefix) :].lstrip(".")
    return None


class _Referrers:
    """The places of the OLD schema that refer to a definition that is no class (an
    alias of a scalar, a union of scalars), followed through aliases of aliases."""

    def __init__(self, homes: _Homes) -> None:
        from ...schema_check import iter_subschemas
        from ..diff_bindings import place

        self.homes = homes
        self.direct: dict[str, list[tuple[str, str]]] = {}
        for definition in sorted(homes.defs):
            for pointer, node in iter_subschemas(homes.defs[definition]):
                ref = node.get("$ref")
                if not isinstance(ref, str):
                    continue
                target = ref_name(ref)
                if target in homes.defs and target != definition:
                    where = place(homes.defs[definition], pointer)
                    self.direct.setdefault(target, []).append((definition, where))

    def of(self, definition: str, seen: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
        if definition in seen or _is_object(self.homes.node(definition, "")):
            return []
        if _members(self.homes.node(definition, "")) and self.homes.member_classes(definition, ""):
            return []  # a union of classes: its members are met as classes
        out: list[tuple[str, str]] = []
        for referrer, location in self.direct.get(definition, []):
            out.append((referrer, location))
            if not location:
                out += self.of(referrer, seen | {definition})
        return out


def _same_class_kind(change: Change, old: _Homes, new: _Homes) -> bool:
    """A reference switch where neither side is a class: what changes behind it is
    listed as changes of their own at the same place (`ref-changed` only folds their
    verdicts), so the switch itself touches no use."""
    if change.kind != "ref-changed":
        return False
    sides = (
        old.node(change.definition, change.location),
        new.node(change.definition, change.location),
    )
    return not any(_is_object(side) for side in sides)


def _is_object(node: Any) -> bool:
    return isinstance(node, dict) and (node.get("type") == "object" or "properties" in node)


def _class_of(change: Change) -> ChangeClass | None:
    if change.api != COMPATIBLE:
        return "api"
    if change.old_reads_new != COMPATIBLE or change.new_reads_old != COMPATIBLE:
        return "wire"
    return None


def _parent(location: str) -> str:
    parts = steps(location)
    return location[: parts[-2][1]] if len(parts) > 1 else ""


def _target(change: Change, change_class: ChangeClass, homes: _Homes, new: _Homes) -> Target | None:
    if change.kind == "binding-removed" and change.old:
        return Target(change, "gone", change_class, change.old)
    found = homes.split(change.definition, change.location)
    if found is None:
        return None
    cls, rest = found
    if change_class == "wire":
        return _field_target(change, "wire", change_class, cls, rest)
    if not rest:
        if change.kind == "definition-removed":
            return Target(change, "gone", change_class, cls)
        if change.kind == "shape-changed" and _members(new.node(change.definition, "")):
            return Target(change, "not-a-class", change_class, cls)
        return Target(change, "value", change_class, cls)
    rule: Rule = {
        "property-removed": "field-gone",
        "property-required": "field-required",
        "nullable-removed": "not-null",
        "nullable-added": "reads",
    }.get(change.kind, "value")  # type: ignore[assignment]
    bound = _bound(change) if change.kind == "constraint-changed" else None
    if bound is not None:
        rule = "bound"
    target = _field_target(change, rule, change_class, cls, rest)
    if target is not None and target.field is not None and not target.items:
        place = change.location.rpartition(target.wire or "")[0] + (target.wire or "")
        target = replace(target, lenient=new.lenient(change.definition, place))
    return target if bound is None or target is None else _with_bound(target, bound)


def _field_target(
    change: Change, rule: Rule, change_class: ChangeClass, cls: str, rest: list[str]
) -> Target | None:
    if not rest:
        return Target(change, rule, change_class, cls)
    wire = rest[0]
    if wire.startswith("<") or wire in ("[]", "*"):
        return Target(change, "value" if rule != "wire" else rule, change_class, cls)
    items = len(rest) > 1
    # A change deeper than the field's own value is met through the field's value.
    rule = "value" if items and rule not in ("wire", "field-gone") else rule
    return Target(change, rule, change_class, cls, python_field(wire), wire, items)


def _with_bound(target: Target, bound: tuple[str, Any]) -> Target:
    if target.items or target.field is None:
        return target
    return replace(target, rule="bound", bound=bound)


def _bound(change: Change) -> tuple[str, Any] | None:
    """(keyword, value) of a bound the change makes narrower: `minimum=1`."""
    if change.new is None:
        return None
    name, sep, text = change.new.partition("=")
    if not sep or name not in LOWER_BOUNDS | UPPER_BOUNDS:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return (name, value) if isinstance(value, int | float) else None


def _tags(doc: Mapping[str, Any]) -> dict[tuple[str, str], str]:
    """(tag wire name, tag value) -> class, for every tagged union of the OLD bindings."""
    from ...generate.prepass import NamingError, prepass

    try:
        result = prepass(dict(doc))
    except (NamingError, LookupError, TypeError, ValueError, AttributeError):
        return {}
    out: dict[tuple[str, str], str] = {}
    for union in result.unions.values():
        for tag, cls in union.variants.items():
            out.setdefault((union.tag_property, tag), cls)
    return out
