"""Generate a package from a schema held in memory, import it and type-check it: what the
tests of `generate` on unusual (but valid) schemas share."""

from __future__ import annotations

import importlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from acp_schema.codegen.generate.pipeline import generate
from acp_schema.codegen.schema_check import SchemaError

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def with_method(defs: dict[str, Any], **root: Any) -> dict[str, Any]:
    """A document whose `Message` (an ACP-style method's params, so there is a method to
    generate) holds `value: Value`; `defs` defines `Value` and whatever it needs."""
    message = {
        "type": "object",
        "properties": {"value": {"$ref": "#/$defs/Value"}},
        "x-method": "probe",
        "x-side": "agent",
    }
    return {"$schema": DRAFT, **root, "$defs": {"Message": message, **defs}}


@dataclass
class Generated:
    name: str  # the package's import name
    root: Path  # the folder holding the package (on sys.path)
    models: ModuleType
    fast: ModuleType


def generate_package(schema: dict[str, Any], root: Path, name: str) -> Generated:
    """Write `schema`, generate `root/name` from it and import the package (raises what
    `generate` raises: SchemaError for a refused schema)."""
    root.mkdir(parents=True, exist_ok=True)
    source = root / f"{name}.json"
    source.write_text(json.dumps(schema), encoding="utf-8")
    generate(source, root / name)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    models = importlib.import_module(f"{name}._models")
    fast = importlib.import_module(f"{name}.fast")
    return Generated(name, root, models, fast)


def refusal(schema: dict[str, Any], root: Path, name: str) -> list[str]:
    """The lines `generate` refuses `schema` with; asserts it wrote nothing."""
    root.mkdir(parents=True, exist_ok=True)
    source = root / f"{name}.json"
    source.write_text(json.dumps(schema), encoding="utf-8")
    try:
        generate(source, root / name)
    except SchemaError as exc:
        assert not (root / name).exists(), "a refused schema must leave nothing behind"
        return exc.lines()
    raise AssertionError("the schema was not refused")


def round_trip(message_class: Any, value: Any) -> Any:
    """The JSON value a decoded `{"value": value}` encodes back to (by wire names)."""
    decoded = message_class.model_validate_json(json.dumps({"value": value}))
    return json.loads(decoded.model_dump_json(by_alias=True, exclude_unset=True))
