"""How a change meets a use: which uses it touches and to what degree.

- **breaks**: the code shows what fails with the NEW bindings: a class that is gone, a
  literal outside a new bound or `None` where null is gone (constructors validate), a
  constructor call without a field that became required, a builder that is gone, a
  removed field the NEW constructor refuses by name.
- **may break**: the use meets the change but the code does not show the value (or the
  NEW bindings do not validate there: builders and attribute writes copy without
  validation, an unknown keyword is kept as an unknown key).
- **note**: a `match` or `if`/`elif` chain over the members of a union or an enum that
  gains one. Never a failure.

Uses the change does not touch are not listed: a constructor call that passes a
required field, a literal inside the new bound, a class whose only change is a new
optional field.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ...generate.pipeline import IGNORED_KEYS
from ..diff_verdicts import LOWER_BOUNDS
from .literals import NOTHING
from .targets import ChainTarget, Target, Targets
from .uses import Use

Degree = Literal["breaks", "may break", "unknown", "note"]
Verdict = tuple[Degree, str] | None
MIGRATE_COMMAND = "acp-schema migrate"


@dataclass(frozen=True)
class Impact:
    """One listed place: where, what changed, how badly, and why."""

    path: str
    line: int
    column: int
    where: str  # Definition.place of the change
    kind: str  # the change's kind
    degree: Degree
    change_class: Literal["api", "wire", "note"]
    use: str  # the use's kind
    message: str
    codemod: str | None = None

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.line, self.column, self.where, self.kind)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "where": self.where,
            "kind": self.kind,
            "degree": self.degree,
            "class": self.change_class,
            "use": self.use,
            "message": self.message,
            "codemod": self.codemod,
        }


CLASS_USES = frozenset(
    {"import", "reference", "call", "validate", "isinstance", "pattern", "annotation", "subclass"}
)
NOT_A_CLASS_USES = frozenset({"call", "validate", "isinstance", "pattern", "subclass"})


def judge(path: str, uses: Iterable[Use], targets: Targets) -> list[Impact]:
    """The impacts of the changes in `targets` on the uses of one file."""
    by_class: dict[str, list[Target]] = {}
    for target in targets.targets:
        by_class.setdefault(target.cls, []).append(target)
    out: list[Impact] = []
    for use in uses:
        if use.kind == "chain":
            out.extend(_chain(path, use, targets.chains))
            continue
        if use.kind == "method":
            change = targets.methods.get(use.field or "")
            if change is not None:
                message = f"method {use.field}: {change.kind} ({change.old} -> {change.new})"
                out.append(
                    Impact(
                        path,
                        use.line,
                        use.column,
                        change.where,
                        change.kind,
                        "may break",
                        "api" if change.api != "compatible" else "wire",
                        use.kind,
                        message,
                    )
                )
            continue
        if use.unshown:
            out.extend(_unshown(path, use, targets.targets))
            continue
        for target in by_class.get(use.cls, ()):
            verdict = _verdict(use, target)
            if verdict is None:
                continue
            degree, message = verdict
            if use.guard and degree == "breaks":
                degree, message = "may break", f"{message} (guarded: {use.guard})"
            out.append(
                Impact(
                    path,
                    use.line,
                    use.column,
                    target.where,
                    target.change.kind,
                    degree,
                    target.change_class,
                    use.kind,
                    message,
                    target.change.codemod,
                )
            )
    return sorted(set(out), key=Impact.sort_key)


def _unshown(path: str, use: Use, targets: Iterable[Target]) -> Iterator[Impact]:
    """A read or write of a field some change touches, on a receiver whose class the code
    neither shows nor rules out: listed as `unknown`, with what it would mean."""
    for target in targets:
        if target.field is None or target.items or use.field != target.field:
            continue
        verdict = _FIELD_RULES[target.rule](use, target)
        if verdict is None:
            continue
        yield Impact(
            path,
            use.line,
            use.column,
            target.where,
            target.change.kind,
            "unknown",
            target.change_class,
            use.kind,
            f"the receiver's class is not shown; if it is a {target.cls}: {verdict[1]}",
            target.change.codemod,
        )


def _verdict(use: Use, target: Target) -> tuple[Degree, str] | None:
    if target.field is None:
        return _class_verdict(use, target)
    if use.kind == "call":
        return _call_verdict(use, target)
    if use.kind == "dict":
        return _dict_verdict(use, target)
    if use.field not in (target.field, target.wire):
        return None
    # A dict key or JSON key is a wire name; a keyword or attribute a Python name.
    wire_use = use.kind == "dict-key"
    if (use.field == target.wire) != wire_use and target.field != target.wire:
        return None
    rule: Callable[[Use, Target], Verdict] = _FIELD_RULES[target.rule]
    return rule(use, target)


def _class_verdict(use: Use, target: Target) -> tuple[Degree, str] | None:
    cls = target.cls
    if target.rule == "gone":
        if use.kind in CLASS_USES:
            return "breaks", f"{cls} is no longer in the bindings"
        return None
    if target.rule == "not-a-class":
        if use.kind in NOT_A_CLASS_USES:
            return "breaks", f"{cls} is now a union of classes: it cannot be {_verb(use)}"
        return None
    if use.kind in ("call", "validate", "dict"):
        what = "its messages" if target.change_class == "wire" else "what it accepts"
        return "may break", f"{cls}: {target.change.kind} changes {what}; the value is not shown"
    return None


def _verb(use: Use) -> str:
    return {
        "call": "called",
        "validate": "validated through the class",
        "isinstance": "used with isinstance",
        "pattern": "matched as a class",
        "subclass": "subclassed",
    }[use.kind]


def _call_verdict(use: Use, target: Target) -> tuple[Degree, str] | None:
    if target.rule != "field-required":
        return None
    if {target.field, target.wire} & use.names:
        return None
    if use.open:
        return "may break", f"{target.cls}() needs {target.field} now; `**` may pass it"
    return "breaks", f"{target.cls}() needs {target.field} now, and this call does not pass it"


def _dict_verdict(use: Use, target: Target) -> tuple[Degree, str] | None:
    if target.rule != "field-required" or target.wire in use.names or use.open:
        return None
    return "may break", f"a {target.cls} message without {target.wire}, which is now required"


def _gone(use: Use, target: Target) -> tuple[Degree, str] | None:
    refused = target.wire in IGNORED_KEYS.get(target.cls, ())
    name = target.field
    if use.kind == "builder":
        return "breaks", f"{target.cls}.with_{name} is gone"
    if use.kind == "keyword":
        if refused:
            return "breaks", f"{target.cls}() refuses {name} now"
        return "may break", f"{target.cls} no longer has {name}: kept as an unknown key"
    if use.kind == "read":
        if refused:
            return "breaks", f"{target.cls} no longer has {name}"
        return "may break", f"{target.cls} no longer has {name}: only an unknown key carries it"
    if use.kind == "write":
        return "may break", f"{target.cls} no longer has {name}: kept as an unknown key"
    if use.kind == "pattern-keyword":
        return "may break", f"{target.cls} no longer has {name}: the pattern may not match"
    if use.kind == "dict-key":
        return "may break", f"{target.cls} messages no longer carry {target.wire}: decoders drop it"
    return None


def _required(use: Use, target: Target) -> tuple[Degree, str] | None:
    return None  # a use of the field passes it; calls and dicts are judged as a whole


def _bound(use: Use, target: Target) -> tuple[Degree, str] | None:
    assert target.bound is not None
    keyword, limit = target.bound
    rule = f"{keyword} {limit}"
    if use.kind not in ("keyword", "builder", "write", "dict-key"):
        return None
    if use.value is NOTHING:
        if use.kind == "keyword":
            return "may break", f"{target.field} has a new bound ({rule}); the value is not shown"
        return None
    if not _violates(use.value, keyword, limit):
        return None
    if use.kind == "keyword" and target.lenient:
        return (
            "may break",
            f"{target.field}={_shown(use.value)} is outside the new bound {rule}: "
            "silently dropped (default-on-error)",
        )
    if use.kind == "keyword":
        return "breaks", f"{target.field}={_shown(use.value)} is outside the new bound {rule}"
    return (
        "may break",
        f"{target.field}={_shown(use.value)} is outside the new bound {rule} (not validated here)",
    )


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join("..." if v is NOTHING else repr(v) for v in value) + "]"
    return repr(value)


def _violates(value: Any, keyword: str, limit: float) -> bool:
    if keyword in ("minItems", "maxItems", "minLength", "maxLength", "minProperties"):
        size = _size(value, keyword)
        if size is None:
            return False
        return size < limit if keyword in LOWER_BOUNDS else size > limit
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    number: float = value
    if keyword == "exclusiveMinimum":
        return number <= limit
    if keyword == "exclusiveMaximum":
        return number >= limit
    return number < limit if keyword in LOWER_BOUNDS else number > limit


def _size(value: Any, keyword: str) -> int | None:
    if keyword.endswith("Items") and isinstance(value, list | tuple):
        return len(value)
    if keyword.endswith("Length") and isinstance(value, str):
        return len(value)
    if keyword.endswith("Properties") and isinstance(value, dict):
        return len(value)
    return None


def _not_null(use: Use, target: Target) -> tuple[Degree, str] | None:
    if use.kind not in ("keyword", "builder", "write", "dict-key"):
        return None
    if use.value is None:
        if use.kind == "keyword" and target.lenient:
            return (
                "may break",
                f"{target.field}=None: null is no longer accepted: "
                "silently dropped (default-on-error)",
            )
        if use.kind == "keyword":
            return "breaks", f"{target.field}=None: null is no longer accepted"
        return "may break", f"{target.field}=None: null is no longer accepted (not validated here)"
    if use.value is NOTHING and use.kind == "keyword":
        return "may break", f"{target.field} no longer accepts null; the value is not shown"
    return None


def _reads(use: Use, target: Target) -> tuple[Degree, str] | None:
    if use.kind in ("read", "pattern-keyword"):
        return "may break", f"{target.field} may now hold other values ({target.change.kind})"
    return None


def _value(use: Use, target: Target) -> tuple[Degree, str] | None:
    if use.kind == "pattern-keyword":
        return None
    return "may break", f"{target.field}: {target.change.kind} ({_sides(target)})"


def _wire(use: Use, target: Target) -> tuple[Degree, str] | None:
    if use.kind in ("keyword", "read", "write", "builder", "dict-key"):
        return (
            "may break",
            f"{target.field}: {target.change.kind} breaks the wire ({_sides(target)})",
        )
    return None


def _sides(target: Target) -> str:
    change = target.change
    return f"{change.old or '(none)'} -> {change.new or '(none)'}"


_FIELD_RULES: Mapping[str, Callable[[Use, Target], Verdict]] = {
    "field-gone": _gone,
    "field-required": _required,
    "bound": _bound,
    "not-null": _not_null,
    "reads": _reads,
    "value": _value,
    "wire": _wire,
    "gone": lambda use, target: None,
    "not-a-class": lambda use, target: None,
}


def _chain(path: str, use: Use, chains: Iterable[ChainTarget]) -> Iterator[Impact]:
    """One note per union or enum that a chain tests at least two members of."""
    groups: dict[str, list[ChainTarget]] = {}
    for target in chains:
        members = target.classes | target.values
        if len(members & use.names) >= 2:
            parent = target.change.where.rpartition("<")[0] or target.change.where
            groups.setdefault(parent, []).append(target)
    for parent, found in sorted(groups.items()):
        added = ", ".join(sorted(t.change.new or "?" for t in found))
        tested = len(use.names & (found[0].classes | found[0].values))
        fallback = "falls to its fallback" if use.open else "reaches no branch"
        message = (
            f"chain over {parent} tests {tested} member(s); NEW adds {added}, which {fallback}"
        )
        yield Impact(
            path,
            use.line,
            use.column,
            parent,
            found[0].change.kind,
            "note",
            "note",
            "chain",
            message,
        )
