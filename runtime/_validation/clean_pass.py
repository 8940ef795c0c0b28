"""The clean pass of `AcpModel.model_validate_json`: JSON text is first validated with
unknown keys forbidden, and only text that this pass refuses is validated as configured
(unknown keys kept).

Why: with `extra="allow"` pydantic-core gives every decoded instance a dict of its own for
unknown keys (`__pydantic_extra__`), empty or not. That dict is one more object per model
for the allocator and, though never walked by the cyclic collector, counted by it: the
collector's generations fill up a third sooner, and a program that keeps what it decodes
pays more full collections (docs/performance.md, "Kept decode"). With unknown keys
forbidden for one call (pydantic-core's per-call `extra`), no such dict is made:
`__pydantic_extra__` is None, which pydantic treats as `{}` (equality, `model_copy`,
encoding; `AcpModel` makes `model_extra` and attribute assignment do the same).

The pass must give exactly what the configured validation gives, or give up. Forbidding
unknown keys only turns acceptances into refusals, so the pass could differ only where a
refusal is absorbed: a fallback that reads a malformed value as omitted, skips an item or
puts an empty value in its place (`_markers`), or a union that tries another member when one
fails. So in this pass:

- every lenient fallback gives up the pass (`give_up_if_clean`) instead of replacing the
  value: the configured validation decides whether the value was malformed or only held an
  unknown key;
- a union whose members may hold a model is guarded (`with_unions_guarded`): reaching it
  gives up the pass, unless the union is one of the runtime's own, which are safe by
  construction (their later members are such fallbacks, or an open union's Other variant,
  which refuses the known tags; they carry `CLEAN_SAFE` in their metadata).

Giving up costs a second validation; a text the pass refuses for any reason (an unknown
key, a malformed value, a real error) is validated again as configured, whose result or
errors are the ones returned.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

__all__ = ["CLEAN", "CLEAN_SAFE", "Unclean", "give_up_if_clean", "with_unions_guarded"]


class _CleanPass(Mapping[str, Any]):
    """The validation context of the clean pass: an empty mapping (a validator that reads
    `info.context` sees no keys), recognised by identity."""

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __iter__(self) -> Any:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "<acp_schema clean pass>"


CLEAN = _CleanPass()
CLEAN_SAFE = "acp_clean_safe"


class Unclean(Exception):
    """Raised inside validation to give up the clean pass. Not a ValueError, so that no
    union or fallback catches it: it leaves pydantic-core as it is."""


def give_up_if_clean(info: core_schema.ValidationInfo) -> None:
    """Called by a lenient fallback before it replaces or skips a value."""
    if info.context is CLEAN:
        raise Unclean


def _guard(value: Any, info: core_schema.ValidationInfo) -> Any:
    give_up_if_clean(info)
    return value


# Nodes that stand for a class of their own: each class's hook guards its own schema.
_CLASSES = frozenset({"model", "dataclass", "typed-dict"})
# Keys of a core schema node that hold no validation schema, or only Python-input ones.
_SKIPPED = frozenset({"metadata", "serialization", "python_schema", "cls", "config"})
_GUARDED = "acp_clean_guarded"


def _kind(node: dict[str, Any]) -> str | None:
    """A core schema node's type; None for a mapping of names (a field named `type`)."""
    kind = node.get("type")
    return kind if isinstance(kind, str) else None


def _holds_class(node: Any, handler: GetCoreSchemaHandler, seen: set[str]) -> bool:
    """Whether a schema may validate into a model (or another class with extra keys)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
            continue
        if not isinstance(item, dict):
            continue
        kind = _kind(item)
        if kind in _CLASSES:
            return True
        if kind == "definition-ref":
            ref = item["schema_ref"]
            if ref in seen:
                continue
            seen.add(ref)
            try:
                stack.append(handler.resolve_ref_schema(item))
            except LookupError:  # still being defined: it may be anything
                return True
            continue
        stack.extend(v for k, v in item.items() if k not in _SKIPPED)
    return False


def _leaf_model(node: Any, handler: GetCoreSchemaHandler) -> bool:
    """A model whose fields hold no class: forbidding unknown keys can refuse it only for
    keys of its own."""
    if _kind(node) == "definition-ref":
        try:
            node = handler.resolve_ref_schema(node)
        except LookupError:
            return False
    return _kind(node) == "model" and not _holds_class(node["schema"], handler, set())


def _ambiguous(node: dict[str, Any], handler: GetCoreSchemaHandler) -> bool:
    """A union where forbidding unknown keys could change which member wins.

    Not one of the runtime's own (`CLEAN_SAFE`), and not a smart union of leaf models only:
    there a member the pass refuses for an unknown key of its own sets fewer fields than a
    member that takes every key as a field, so pydantic's smart mode never prefers it."""
    if (node.get("metadata") or {}).get(CLEAN_SAFE):
        return False
    choices = [c[0] if isinstance(c, tuple) else c for c in node["choices"]]
    if len(choices) < 2 or not any(_holds_class(c, handler, set()) for c in choices):
        return False
    smart = node.get("mode", "smart") == "smart"
    return not (smart and all(_leaf_model(c, handler) for c in choices))


def with_unions_guarded(node: Any, handler: GetCoreSchemaHandler, top: bool = True) -> Any:
    """A copy of a model's core schema in which every ambiguous union gives up the clean
    pass when reached (a Python call there, in every pass: such unions are rare). Other
    classes are left alone (their own hook guards them); a named type (an alias) is
    guarded where it is defined, once, since schemas share it."""
    if isinstance(node, list):
        return [with_unions_guarded(item, handler, False) for item in node]
    if not isinstance(node, dict):
        return node
    kind = _kind(node)
    if (node.get("metadata") or {}).get(_GUARDED) or (kind in _CLASSES and not top):
        return node
    if kind == "definition-ref":
        try:
            target: Any = handler.resolve_ref_schema(node)
        except LookupError:  # still being defined (a recursive alias): done where it is
            return node
        if target is not node and target.get("type") not in (*_CLASSES, "definition-ref"):
            metadata = target.get("metadata") or {}
            if metadata.get(_GUARDED):
                return node
            # Marked before the walk: an alias that refers to itself through others
            # (`A = list[B]`, `B = list[A]`) then meets itself as done instead of recursing.
            marks = {**metadata, _GUARDED: True}
            target["metadata"] = marks
            plain = {**target, "metadata": metadata}  # as it was: unions read their marks
            guarded = with_unions_guarded(plain, handler, False)  # keeps the name (`ref`)
            target.clear()
            target.update(guarded)
            target["metadata"] = {**(guarded.get("metadata") or {}), **marks}
        return node
    copy = {
        key: value if key in _SKIPPED else with_unions_guarded(value, handler, False)
        for key, value in node.items()
    }
    if kind in ("union", "function-wrap") and _wrapped_ambiguity(copy, handler):
        ref = copy.pop("ref", None)  # a named union: the guard takes its name
        return core_schema.with_info_before_validator_function(
            _guard, copy, ref=ref, metadata={_GUARDED: True}
        )
    return copy


def _wrapped_ambiguity(node: dict[str, Any], handler: GetCoreSchemaHandler) -> bool:
    if node["type"] == "union":
        return _ambiguous(node, handler)
    # A wrap validator may catch a refusal and do something else: guarded if it wraps a
    # class. (The runtime makes none; a subclass's own validators may.)
    return _holds_class(node.get("schema"), handler, set())
