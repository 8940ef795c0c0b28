"""The smallest valid instance of a schema definition, for decoding real-shaped messages.

Published ACP schemas carry no `examples`, so the release matrix builds one instance per
definition: required properties only, the first value each keyword allows, the first union
variant that validates. Every instance is checked against the schema with jsonschema before
use, so a gap here can only leave a message out, never fake a pass.
"""

from __future__ import annotations

from typing import Any

from .schema_validator import EcmaValidator

JSON = dict[str, Any]
_MAX_DEPTH = 24


class NoInstance(ValueError):
    """No minimal instance could be built for this schema."""


class MinimalInstances:
    def __init__(self, schema: JSON) -> None:
        self.schema = schema
        self.defs: JSON = schema.get("$defs", {})
        self.validator = EcmaValidator(schema)

    def valid(self, node: Any, instance: Any) -> bool:
        probe = {**node, "$defs": self.defs} if isinstance(node, dict) else node
        return bool(self.validator.evolve(schema=probe).is_valid(instance))

    def for_def(self, name: str) -> Any:
        """A valid instance of definition `name`; NoInstance if none was found."""
        node = {"$ref": f"#/$defs/{name}"}
        instance = self.build(node, 0)
        if not self.valid(node, instance):
            raise NoInstance(name)
        return instance

    def build(self, node: Any, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise NoInstance("too deep")
        if node is True or node == {}:
            return None
        if not isinstance(node, dict):
            raise NoInstance("false schema")
        if "const" in node:
            return node["const"]
        if isinstance(node.get("enum"), list) and node["enum"]:
            return node["enum"][0]
        parts: list[Any] = []
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            parts.append(self.build(self.defs[ref.rsplit("/", 1)[-1]], depth + 1))
        for sub in node.get("allOf", []):
            parts.append(self.build(sub, depth + 1))
        own = self.own_value(node, depth)
        if own is not _NOTHING:
            parts.append(own)
        base = _merge(parts)
        for key in ("oneOf", "anyOf"):
            variants = node.get(key)
            if isinstance(variants, list):
                return self.pick(node, variants, base, depth)
        return base

    def pick(self, node: JSON, variants: list[Any], base: Any, depth: int) -> Any:
        first: Any = _NOTHING
        for variant in variants:
            try:
                candidate = _merge([base, self.build(variant, depth + 1)])
            except NoInstance:
                continue
            if first is _NOTHING:
                first = candidate
            if self.valid(node, candidate):
                return candidate
        if first is _NOTHING:
            raise NoInstance("no variant")
        return first

    def own_value(self, node: JSON, depth: int) -> Any:
        kinds = node.get("type")
        options = kinds if isinstance(kinds, list) else [kinds] if kinds else []
        if not options and ("properties" in node or "required" in node):
            options = ["object"]
        chosen = next((k for k in options if k != "null"), options[0] if options else None)
        if chosen is None:
            return _NOTHING
        if chosen == "object":
            props = node.get("properties", {})
            return {
                name: self.build(props.get(name, True), depth + 1)
                for name in node.get("required", [])
            }
        if chosen == "array":
            count = int(node.get("minItems", 0))
            return [self.build(node.get("items", True), depth + 1) for _ in range(count)]
        if chosen == "string":
            return "x" * max(int(node.get("minLength", 1)), 1)
        if chosen in ("integer", "number"):
            low = node.get("minimum", node.get("exclusiveMinimum", 0))
            return max(int(low) + (1 if "exclusiveMinimum" in node else 0), 0)
        if chosen == "boolean":
            return False
        return None


class _Nothing:
    pass


_NOTHING: Any = _Nothing()


def _merge(parts: list[Any]) -> Any:
    """Objects are merged key by key (later parts win); otherwise the last part stands."""
    parts = [p for p in parts if p is not _NOTHING]
    if not parts:
        return None
    if all(isinstance(p, dict) for p in parts):
        merged: JSON = {}
        for part in parts:
            merged.update(part)
        return merged
    return parts[-1]
