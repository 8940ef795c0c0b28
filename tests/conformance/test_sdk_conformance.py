"""Side by side with the published TypeScript SDK: the same `session/update` params, drawn
from the bundled schema and mutated, decoded by our bindings and by the SDK's zod schemas.

On inputs the schema accepts, the two must agree exactly (after the normalisations in
`compare.difference`). Every other disagreement must belong to a class that
docs/bindings.md ("Where we differ from the TypeScript SDK") lists with its reason.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pytest
from jsonschema import FormatChecker
from jsonschema.protocols import Validator

from acp_schema import v1, v2
from acp_schema.codegen.bundled import bundled_schema
from tests.conformance import sdk
from tests.conformance.compare import (
    FORMATS,
    STRING_FORMATS,
    breaks_string_format,
    difference,
    ours,
    schema_valid,
    string_format_keys,
)
from tests.conformance.inputs import NOTIFICATION, Case, cases, draw_updates
from tests.conformance.report import LINES
from tests.schema_strategies import SchemaStrategies
from tests.schema_validator import EcmaValidator

# The release whose schema the bundled one matches (held to exact agreement), and the one
# before it (figures only: its schema differs).
SDK_VERSIONS = ["2.1.0", "2.4.0"]
PER_PROTOCOL = 1000  # drawn updates per protocol version; each also mutated once
MODELS = {"v1": v1.SessionNotification, "v2": v2.UpdateSessionNotification}

# Disagreements that are ours on purpose, by class; docs/bindings.md ("Where we differ from
# the TypeScript SDK") gives the reason for each.
DOCUMENTED = {
    "unknown keys kept",
    "large integer rounded by JavaScript",
    "string format (uri, date-time) asserted by the SDK only",
    "integer beyond its format's range: refused by the bindings only",
    "malformed value read as omitted (the SDK writes the schema default)",
    "ours accepts, SDK rejects: non-finite number Infinity",
    "ours accepts, SDK rejects: non-finite number -Infinity",
}


def _structure(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _structure(v) for k, v in schema.items() if k not in ("description", "title")}
    if isinstance(schema, list):
        return [_structure(v) for v in schema]
    return schema


@cache
def bundled(protocol: str) -> dict[str, Any]:
    return json.loads(bundled_schema(protocol).read_text())


@cache
def inputs(protocol: str) -> list[Case]:
    """Half drawn with any strings, half with every `uri`/`date-time` string well formed
    (the SDK asserts those formats, which would otherwise mask the other mutations)."""
    updates = []
    for good_formats in (False, True):
        gen = SchemaStrategies(bundled(protocol), good_formats=good_formats)
        updates += draw_updates(gen, PER_PROTOCOL // 2, seed=13)
    return cases(protocol, updates, seed=13)


def validator(
    schema: dict[str, Any], protocol: str, formats: FormatChecker | None = None
) -> Validator:
    probe = {"$ref": f"#/$defs/{NOTIFICATION[protocol]}", "$defs": schema["$defs"]}
    return EcmaValidator(probe, format_checker=formats)


# What the bundled schema says of an input does not depend on the SDK release it is
# compared with: judged once per input (jsonschema was most of this file's time).
_BUNDLED_CHECKS = {"plain": None, "formats": FORMATS, "string formats": STRING_FORMATS}


@cache
def _bundled_validator(protocol: str, checks: str) -> Validator:
    return validator(bundled(protocol), protocol, _BUNDLED_CHECKS[checks])


@cache
def bundled_valid(protocol: str, checks: str, text: str) -> bool:
    return schema_valid(_bundled_validator(protocol, checks), text)


@dataclass
class Figures:
    inputs: int = 0
    valid: int = 0  # valid under the bundled schema and the SDK's (formats as annotations)
    agreeing: int = 0
    format_valid: int = 0  # of those, also meeting every format (string and integer)
    format_agreeing: int = 0
    classes: Counter[str] = field(default_factory=Counter)
    samples: dict[str, str] = field(default_factory=dict)  # one input per class, for reports


def classify(version: str, protocol: str) -> tuple[Figures, bool]:
    """The agreement figures and disagreement classes, and whether the schemas match."""
    package = sdk.package_dir(version)
    theirs_schema = json.loads(sdk.schema_path(package, protocol).read_text())
    same = _structure(theirs_schema) == _structure(bundled(protocol))
    # The release's own schema, where it differs from the bundled one (else the same verdict).
    theirs_check = None if same else validator(theirs_schema, protocol)
    format_keys = string_format_keys(bundled(protocol))
    batch = inputs(protocol)
    verdicts = sdk.decode(package, protocol, [case.text for case in batch])
    figures = Figures(inputs=len(batch))
    classes = figures.classes
    for case, verdict in zip(batch, verdicts, strict=True):
        is_valid = bundled_valid(protocol, "plain", case.text) and (
            theirs_check is None or schema_valid(theirs_check, case.text)
        )
        formats_met = is_valid and bundled_valid(protocol, "formats", case.text)
        notes: set[str] = set()
        accepted, mine, unknown = ours(MODELS[protocol], case.text)
        if accepted != verdict["ok"]:
            side = "ours accepts, SDK rejects" if accepted else "ours rejects, SDK accepts"
            label = f"{side}: {case.mutation}"
        elif accepted and difference(mine, verdict["value"], unknown, notes, json.loads(case.text)):
            label = f"decoded values differ: {case.mutation}"
        else:
            label = None
        figures.valid += is_valid
        figures.agreeing += is_valid and label is None
        figures.format_valid += formats_met
        figures.format_agreeing += formats_met and label is None
        if label is not None:
            if breaks_string_format(json.loads(case.text), format_keys) or (
                is_valid and not bundled_valid(protocol, "string formats", case.text)
            ):
                label = "string format (uri, date-time) asserted by the SDK only"
            elif is_valid and not formats_met:
                label = "integer beyond its format's range: refused by the bindings only"
            elif not same and not is_valid and label not in DOCUMENTED:
                label = f"{label} (schemas differ)"
            classes[label] += 1
            figures.samples.setdefault(label, case.text)
        classes.update(notes)
    return figures, same


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} = {100.0 * part / whole if whole else 100.0:.1f}%"


@pytest.mark.parametrize("protocol", ["v1", "v2"])
@pytest.mark.parametrize("version", SDK_VERSIONS)
def test_decoding_agrees_with_the_typescript_sdk(version: str, protocol: str) -> None:
    try:
        figures, same = classify(version, protocol)
    except sdk.Unavailable as why:
        pytest.skip(str(why))
    schema_note = "same schema as bundled" if same else "schema differs from bundled"
    LINES.append(
        f"SDK {version} {protocol} ({schema_note}): {figures.inputs} inputs; agreement on "
        f"schema-valid {_share(figures.agreeing, figures.valid)}; on schema-valid with the "
        f"formats met {_share(figures.format_agreeing, figures.format_valid)}"
    )
    LINES.extend(f"    {n:5d}  {label}" for label, n in sorted(figures.classes.items()))
    # Inputs both schemas accept, formats met, decode alike, whichever release; where the
    # release's schema differs from the bundled one, inputs only one of them accepts may
    # decode differently ("(schemas differ)": schema drift, not a decoding difference).
    unexplained = {c for c in figures.classes if c not in DOCUMENTED}
    if not same:
        # A release whose schema differs from the bundled one: figures for the record; where
        # the schemas differ, a decoder that does not know a field strips or refuses it, so
        # only the bundled schema's own release is held to exact agreement.
        return
    examples = {c: figures.samples.get(c, "") for c in unexplained}
    assert figures.format_agreeing == figures.format_valid, (figures.classes, examples)
    assert not unexplained, examples
