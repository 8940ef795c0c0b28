"""The degree table of `diff --impact` (codegen/drift/impact/judge.py): each rule against
each kind of use, written out, so a changed degree or message is caught here."""

from __future__ import annotations

from typing import Any

import pytest

from acp_schema.codegen.drift.impact.judge import Impact, judge
from acp_schema.codegen.drift.impact.literals import NOTHING
from acp_schema.codegen.drift.impact.targets import ChainTarget, Target, Targets
from acp_schema.codegen.drift.impact.uses import Use
from acp_schema.codegen.drift.schema_diff import Change


def _target(rule: str, *, field: str | None = "line", **extra: Any) -> Target:
    change = Change("Loc", field or "", extra.pop("kind", "k"), "o", "n", api="breaking")
    wire = extra.pop("wire", field)
    return Target(
        change, rule, extra.pop("klass", "api"), extra.pop("cls", "Loc"), field, wire, **extra
    )  # type: ignore[arg-type]


def _one(use: Use, target: Target) -> tuple[str, str] | None:
    found = judge("p.py", [use], Targets([target], [], {}, {}))
    assert len(found) <= 1
    return (found[0].degree, found[0].message) if found else None


def use(kind: str, field: str | None = "line", value: Any = NOTHING, **extra: Any) -> Use:
    return Use(3, 4, kind, "Loc", field, value, **extra)  # type: ignore[arg-type]


CASES = [
    # a class that is gone: every naming use breaks, wire shapes do not
    ("gone", None, use("import", None), ("breaks", "Loc is no longer in the bindings")),
    ("gone", None, use("annotation", None), ("breaks", "Loc is no longer in the bindings")),
    ("gone", None, use("dict", None), None),
    # a class that became a union
    (
        "not-a-class",
        None,
        use("call", None),
        ("breaks", "Loc is now a union of classes: it cannot be called"),
    ),
    (
        "not-a-class",
        None,
        use("isinstance", None),
        ("breaks", "Loc is now a union of classes: it cannot be used with isinstance"),
    ),
    (
        "not-a-class",
        None,
        use("validate", None),
        ("breaks", "Loc is now a union of classes: it cannot be validated through the class"),
    ),
    (
        "not-a-class",
        None,
        use("pattern", None),
        ("breaks", "Loc is now a union of classes: it cannot be matched as a class"),
    ),
    (
        "not-a-class",
        None,
        use("subclass", None),
        ("breaks", "Loc is now a union of classes: it cannot be subclassed"),
    ),
    ("not-a-class", None, use("annotation", None), None),
    ("not-a-class", None, use("import", None), None),
    # a class-level change of what it accepts
    (
        "value",
        None,
        use("call", None),
        ("may break", "Loc: k changes what it accepts; the value is not shown"),
    ),
    (
        "value",
        None,
        use("dict", None),
        ("may break", "Loc: k changes what it accepts; the value is not shown"),
    ),
    ("value", None, use("annotation", None), None),
    (
        "wire",
        None,
        use("validate", None),
        ("may break", "Loc: k changes its messages; the value is not shown"),
    ),
    # a removed field
    ("field-gone", "line", use("builder"), ("breaks", "Loc.with_line is gone")),
    (
        "field-gone",
        "line",
        use("keyword"),
        ("may break", "Loc no longer has line: kept as an unknown key"),
    ),
    (
        "field-gone",
        "line",
        use("read"),
        ("may break", "Loc no longer has line: only an unknown key carries it"),
    ),
    (
        "field-gone",
        "line",
        use("write"),
        ("may break", "Loc no longer has line: kept as an unknown key"),
    ),
    (
        "field-gone",
        "line",
        use("pattern-keyword"),
        ("may break", "Loc no longer has line: the pattern may not match"),
    ),
    (
        "field-gone",
        "line",
        use("dict-key"),
        ("may break", "Loc messages no longer carry line: decoders drop it"),
    ),
    ("field-gone", "line", use("keyword", "other"), None),
    # a newly required field
    (
        "field-required",
        "line",
        use("call", None, names=frozenset()),
        ("breaks", "Loc() needs line now, and this call does not pass it"),
    ),
    (
        "field-required",
        "line",
        use("call", None, names=frozenset(), open=True),
        ("may break", "Loc() needs line now; `**` may pass it"),
    ),
    ("field-required", "line", use("call", None, names=frozenset({"line"})), None),
    (
        "field-required",
        "line",
        use("dict", None, names=frozenset()),
        ("may break", "a Loc message without line, which is now required"),
    ),
    ("field-required", "line", use("dict", None, names=frozenset({"line"})), None),
    ("field-required", "line", use("dict", None, names=frozenset(), open=True), None),
    ("field-required", "line", use("keyword"), None),
    # null no longer accepted
    (
        "not-null",
        "line",
        use("keyword", value=None),
        ("breaks", "line=None: null is no longer accepted"),
    ),
    ("not-null", "line", use("keyword", value=3), None),
    (
        "not-null",
        "line",
        use("keyword"),
        ("may break", "line no longer accepts null; the value is not shown"),
    ),
    (
        "not-null",
        "line",
        use("builder", value=None),
        ("may break", "line=None: null is no longer accepted (not validated here)"),
    ),
    ("not-null", "line", use("builder"), None),
    ("not-null", "line", use("read"), None),
    # reads that may see other values
    ("reads", "line", use("read"), ("may break", "line may now hold other values (k)")),
    ("reads", "line", use("keyword", value=None), None),
    # other field changes
    ("value", "line", use("keyword", value=1), ("may break", "line: k (o -> n)")),
    ("value", "line", use("pattern-keyword"), None),
    ("wire", "line", use("read"), ("may break", "line: k breaks the wire (o -> n)")),
    ("wire", "line", use("pattern-keyword"), None),
]


@pytest.mark.parametrize(("rule", "field", "the_use", "expected"), CASES)
def test_degree_table(rule: str, field: str | None, the_use: Use, expected: Any) -> None:
    klass = "wire" if rule == "wire" else "api"
    assert _one(the_use, _target(rule, field=field, klass=klass)) == expected


def test_the_chunk_fields_are_refused_by_the_new_constructor() -> None:
    target = _target(
        "field-gone", field="sender_session_id", wire="senderSessionId", cls="SessionMessageChunk"
    )
    keyword = Use(1, 0, "keyword", "SessionMessageChunk", "sender_session_id")
    read = Use(1, 0, "read", "SessionMessageChunk", "sender_session_id")
    assert _one(keyword, target) == (
        "breaks",
        "SessionMessageChunk() refuses sender_session_id now",
    )
    assert _one(read, target) == ("breaks", "SessionMessageChunk no longer has sender_session_id")
    # a dict key is a wire name: the Python name there is nothing of the chunk's
    wrong = Use(1, 0, "dict-key", "SessionMessageChunk", "sender_session_id")
    assert _one(wrong, target) is None


@pytest.mark.parametrize(
    ("keyword", "limit", "value", "degree"),
    [
        ("minimum", 1, 0, "breaks"),
        ("minimum", 1, 1, None),
        ("minimum", 1, 0.5, "breaks"),
        ("minimum", 1, True, None),  # a bool is no number here
        ("maximum", 10, 11, "breaks"),
        ("maximum", 10, 10, None),
        ("exclusiveMinimum", 0, 0, "breaks"),
        ("exclusiveMinimum", 0, 1, None),
        ("exclusiveMaximum", 5, 5, "breaks"),
        ("exclusiveMaximum", 5, 4, None),
        ("minItems", 1, [], "breaks"),
        ("minItems", 1, [NOTHING], None),
        ("maxItems", 1, [1, 2], "breaks"),
        ("maxItems", 2, (1, 2), None),
        ("minLength", 2, "a", "breaks"),
        ("minLength", 2, "ab", None),
        ("maxLength", 2, "abc", "breaks"),
        ("minLength", 2, 5, None),  # not a string: not judged
        ("minProperties", 1, {}, "breaks"),
        ("minProperties", 1, {"a": 1}, None),
        ("minimum", 1, "0", None),
    ],
)
def test_bounds(keyword: str, limit: Any, value: Any, degree: str | None) -> None:
    target = _target("bound", bound=(keyword, limit))
    found = _one(use("keyword", value=value), target)
    assert (found[0] if found else None) == degree
    if found:
        assert found[1].startswith("line=") and f"the new bound {keyword} {limit}" in found[1]


def test_bound_messages() -> None:
    bound = _target("bound", bound=("minItems", 1))
    assert _one(use("keyword", value=[]), bound) == (
        "breaks",
        "line=[] is outside the new bound minItems 1",
    )
    lenient = _target("bound", bound=("minimum", 1), lenient=True)
    assert _one(use("keyword", value=0), lenient) == (
        "may break",
        "line=0 is outside the new bound minimum 1: silently dropped (default-on-error)",
    )
    assert _one(use("builder", value=0), bound) is None  # not a list: no size
    minimum = _target("bound", bound=("minimum", 1))
    assert _one(use("builder", value=0), minimum) == (
        "may break",
        "line=0 is outside the new bound minimum 1 (not validated here)",
    )
    assert _one(use("builder"), minimum) is None
    assert _one(use("keyword"), minimum) == (
        "may break",
        "line has a new bound (minimum 1); the value is not shown",
    )
    assert _one(use("read"), minimum) is None
    assert _one(use("keyword", value=[NOTHING, 2]), _target("bound", bound=("maxItems", 1))) == (
        "breaks",
        "line=[..., 2] is outside the new bound maxItems 1",
    )
    lenient_null = _target("not-null", lenient=True)
    assert _one(use("keyword", value=None), lenient_null) == (
        "may break",
        "line=None: null is no longer accepted: silently dropped (default-on-error)",
    )


def test_impacts_carry_the_change_and_the_codemod() -> None:
    change = Change("Loc", "line", "property-removed", api="breaking", codemod="cm")
    target = Target(change, "field-gone", "wire", "Loc", "line", "line")
    [found] = judge("p.py", [use("read")], Targets([target], [], {}, {}))
    assert found == Impact(
        "p.py",
        3,
        4,
        "Loc.line",
        "property-removed",
        "may break",
        "wire",
        "read",
        "Loc no longer has line: only an unknown key carries it",
        "cm",
    )
    assert found.to_json() == {
        "path": "p.py", "line": 3, "column": 4, "where": "Loc.line", "kind": "property-removed",
        "degree": "may break", "class": "wire", "use": "read",
        "message": "Loc no longer has line: only an unknown key carries it", "codemod": "cm",
    }  # fmt: skip


def test_methods_and_chains() -> None:
    change = Change(
        "ClientRequest", "<method=a/b>", "method-removed", "a/b (client)", None, api="breaking"
    )
    method = Use(2, 1, "method", field="a/b")
    [found] = judge("p.py", [method], Targets([], [], {}, {"a/b": change}))
    assert (found.degree, found.change_class, found.message) == (
        "may break",
        "api",
        "method a/b: method-removed (a/b (client) -> None)",
    )
    added = Change("U", "<ref:C>", "variant-added", None, "C")
    chains = [ChainTarget(added, frozenset({"A", "B"}))]
    two = Use(5, 0, "chain", names=frozenset({"A", "B", "Z"}))
    one = Use(6, 0, "chain", names=frozenset({"A", "Z"}))
    [note] = judge("p.py", [two, one], Targets([], chains, {}, {}))
    assert note == Impact(
        "p.py",
        5,
        0,
        "U",
        "variant-added",
        "note",
        "note",
        "chain",
        "chain over U tests 2 member(s); NEW adds C, which reaches no branch",
    )


MORE_CASES = [
    (
        "bound",
        use("write", value=0),
        ("may break", "line=0 is outside the new bound minimum 1 (not validated here)"),
    ),
    (
        "bound",
        use("dict-key", value=0),
        ("may break", "line=0 is outside the new bound minimum 1 (not validated here)"),
    ),
    (
        "not-null",
        use("write", value=None),
        ("may break", "line=None: null is no longer accepted (not validated here)"),
    ),
    (
        "not-null",
        use("dict-key", value=None),
        ("may break", "line=None: null is no longer accepted (not validated here)"),
    ),
    ("reads", use("pattern-keyword"), ("may break", "line may now hold other values (k)")),
    ("wire", use("keyword"), ("may break", "line: k breaks the wire (o -> n)")),
    ("wire", use("write"), ("may break", "line: k breaks the wire (o -> n)")),
    ("wire", use("builder"), ("may break", "line: k breaks the wire (o -> n)")),
    ("wire", use("dict-key"), ("may break", "line: k breaks the wire (o -> n)")),
]


@pytest.mark.parametrize(("rule", "the_use", "expected"), MORE_CASES)
def test_degree_table_other_uses(rule: str, the_use: Use, expected: Any) -> None:
    klass = "wire" if rule == "wire" else "api"
    target = _target(rule, klass=klass, bound=("minimum", 1) if rule == "bound" else None)
    assert _one(the_use, target) == expected


def test_sides_say_none_for_a_missing_side() -> None:
    change = Change("Loc", "line", "k", None, None, api="breaking")
    target = Target(change, "value", "api", "Loc", "line", "line")
    assert _one(use("read"), target) == ("may break", "line: k ((none) -> (none))")


def test_size_of_a_dict_counts_only_for_properties() -> None:
    target = _target("bound", bound=("minItems", 1))
    assert _one(use("keyword", value={}), target) is None


def test_every_target_of_a_class_is_tried_and_impacts_are_sorted() -> None:
    gone = _target("field-gone", field="other")  # touches nothing of `use("read")`
    reads = _target("reads")
    later = Use(9, 0, "read", "Loc", "line")
    unknown = Use(1, 0, "read", "Nope", "line")
    found = judge("p.py", [later, unknown, use("read")], Targets([gone, reads], [], {}, {}))
    assert [(i.line, i.message) for i in found] == [
        (3, "line may now hold other values (k)"),
        (9, "line may now hold other values (k)"),
    ]


def test_method_impacts_in_full() -> None:
    breaking = Change("R", "<method=a/b>", "method-removed", "a/b", None, api="breaking")
    wire_only = Change("R", "<method=c/d>", "method-changed", "c/d", "c/e")
    uses = [Use(2, 1, "method", field="a/b"), Use(4, 0, "method", field="c/d"), use("read")]
    targets = Targets([_target("reads")], [], {}, {"a/b": breaking, "c/d": wire_only})
    assert judge("p.py", uses, targets) == [
        Impact(
            "p.py",
            2,
            1,
            "R<method=a/b>",
            "method-removed",
            "may break",
            "api",
            "method",
            "method a/b: method-removed (a/b -> None)",
        ),
        Impact(
            "p.py",
            3,
            4,
            "Loc.line",
            "k",
            "may break",
            "api",
            "read",
            "line may now hold other values (k)",
        ),
        Impact(
            "p.py",
            4,
            0,
            "R<method=c/d>",
            "method-changed",
            "may break",
            "wire",
            "method",
            "method c/d: method-changed (c/d -> c/e)",
        ),
    ]


def test_chain_notes_group_the_additions_of_one_union() -> None:
    first = Change("Req", "params<ref:C>", "variant-added", None, "C")
    second = Change("Req", "params<ref:D>", "variant-added", None, None)
    chains = [ChainTarget(c, frozenset({"A", "B"})) for c in (first, second)]
    chain = Use(5, 0, "chain", names=frozenset({"A", "B"}), open=True)
    [note] = judge("p.py", [chain, use("read")], Targets([], chains, {}, {}))
    assert note.where == "Req.params"
    assert note.message == (
        "chain over Req.params tests 2 member(s); NEW adds ?, C, which falls to its fallback"
    )


def test_a_chain_note_names_the_innermost_union_and_other_uses_still_count() -> None:
    added = Change("Resp", "<title:Result>.result<ref:C>", "variant-added", None, "C")
    chain = Use(5, 0, "chain", names=frozenset({"A", "B"}))
    targets = Targets([_target("reads")], [ChainTarget(added, frozenset({"A", "B"}))], {}, {})
    found = judge("p.py", [chain, use("read")], targets)
    assert [(i.line, i.where) for i in found] == [(3, "Loc.line"), (5, "Resp<title:Result>.result")]
