"""Free-form values given from Python (`_meta`, unknown keys, `Any` fields) must be JSON
values, as those parsed from JSON text are: the check, the rewrite of a model's core schema
that applies it (`AcpModel` calls it), and `_python_input`, which refuses the whole input
when a value was not JSON."""

from __future__ import annotations

import re
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, NoReturn, TypeVar

from pydantic import MISSING, GetCoreSchemaHandler, ValidationError
from pydantic_core import core_schema

from .errors import readable
from .json_text import _NAN_DONE, _json_error, _refuse_nan
from .markers import _OPAQUE


class NotJsonError(TypeError):
    """A free-form value given from Python (`model_validate(dict)`, the constructor) that
    JSON text cannot hold. Not a ValueError, so that no union tries another variant with
    it. A default-on-error around it (an optional field holding a model) still reads any
    failure as omitted, so the refusal is also noted in `_NOT_JSON`, and `AcpModel`'s
    entry points refuse the whole input (a `json_invalid` ValidationError), as JSON text
    spelling `NaN` is refused. A TypeAdapter of a union raises it as it is."""


# The first refusal of the running Python-mode validation: what it says (located in the
# value refused) and that value (`_TYPED_STRING` for a typed string), so that the whole
# input's refusal can say where in the input it is.
_NOT_JSON: ContextVar[tuple[str, Any] | None] = ContextVar("acp_schema_not_json", default=None)
_TYPED_STRING = object()


def _not_json(message: str, value: Any = _TYPED_STRING) -> NoReturn:
    if _NOT_JSON.get() is None:
        _NOT_JSON.set((message, value))
    raise NotJsonError(message)


_Validated = TypeVar("_Validated")


def _python_input(title: str, data: Any, validate: Callable[[], _Validated]) -> _Validated:
    """Run a Python-mode validation; refuse the whole input if a free-form value in it
    was not JSON, even where a default-on-error swallowed that value's refusal."""
    token = _NOT_JSON.set(None)
    try:
        try:
            result = validate()
        except (NotJsonError, ValidationError) as error:
            problem = _NOT_JSON.get()
            if problem is not None:
                raise _json_error(title, data, _placed(problem, data)) from None
            if isinstance(error, ValidationError):
                raise readable(error) from None  # one error per real problem (`_errors`)
            raise
        problem = _NOT_JSON.get()
        if problem is not None:
            raise _json_error(title, data, _placed(problem, data))
        return result
    finally:
        _NOT_JSON.reset(token)


def _placed(problem: tuple[str, Any], data: Any) -> str:
    """The refusal located from the root of the whole input (a JSON pointer): a free-form
    value's own refusal says where in that value; the value's place in the input goes
    before it (`/update/_meta/k`, not `/k`)."""
    message, value = problem
    if value is _TYPED_STRING:
        where = _surrogate_at(data)
        return message if where is None else f"{message} ({where})"
    place = _place_of(value, data)
    if place is _NOT_FOUND:
        return message
    return _problem(value, place) or message


_NOT_FOUND = object()


def _place_of(value: Any, data: Any) -> Any:
    """Where (`_at`'s form) `data` holds the very object `value`, first in document order;
    `_NOT_FOUND` if nowhere (walking dicts and lists, each once)."""
    stack: list[tuple[Any, Any]] = [(data, None)]
    seen: set[int] = set()
    while stack:
        item, where = stack.pop()
        if item is value:
            return where
        if isinstance(item, (dict, list)) and id(item) not in seen:
            seen.add(id(item))
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            stack.extend((child, (where, key)) for key, child in reversed(list(pairs)))
    return _NOT_FOUND


# Python types a free-form value parsed from JSON text can have. Infinity is allowed: the
# text path reads an overflowing number (`1e400`) in a free-form value as infinity.
_JSON_LEAVES = (str, int, float, type(None))
_EXACT = frozenset({str, dict, list, int, bool, float, type(None)})
_BASES = (str, dict, list, float, int)
# JSON text cannot carry one (pydantic-core refuses the escape), nor can UTF-8 output.
_SURROGATE = re.compile("[\ud800-\udfff]")
# Levels of objects and arrays a free-form value may hold. JSON text cannot go deeper
# (`loads_wire` stops at the interpreter's recursion limit, 1,000 by default), and a value
# that contains itself would be infinitely deep: the walks stop there, in bounded time.
MAX_DEPTH = 1000
# Objects and arrays the depth-counting walk visits before the exact walk takes over. A
# part shared by several places is walked once per place by the fast walks (`a = [a0, a0]`
# forty times over is 2**40 places), and once in all by the exact walk.
_DEEP_CONTAINERS = 100_000
_UP = object()  # on the depth-counting walk's stack: the walk leaves a level


def _json_value(value: Any) -> Any:
    """`value` itself if it is made of JSON values only (objects with string keys, arrays,
    strings without lone surrogates, numbers but NaN, booleans, null), at most `MAX_DEPTH`
    levels deep and containing no part of itself; else NotJsonError saying what and where.

    The common path is one walk with a stack (depth costs no recursion) that counts
    containers only: a value of at most `MAX_DEPTH` of them cannot nest deeper, nor be
    walked forever. A larger one takes the walk that counts levels (`_deep_value`), and
    anything refused takes the exact walk (`_problem`), which says what and where."""
    stack = [value]
    pop, push = stack.pop, stack.append
    budget = MAX_DEPTH
    while stack:
        item = pop()
        kind = item.__class__
        if kind not in _EXACT:  # a subclass (an OrderedDict, a str enum) counts as its base
            kind = next((base for base in _BASES if isinstance(item, base)), kind)
        if kind is str:
            if not item.isascii() and _SURROGATE.search(item):
                break
        elif kind is dict:
            budget -= 1
            if budget < 0:
                return _deep_value(value)
            for key, child in item.items():
                if key.__class__ is not str or (not key.isascii() and _SURROGATE.search(key)):
                    _not_json(_problem(value) or "a key that is not JSON", value)
                push(child)
        elif kind is list:
            budget -= 1
            if budget < 0:
                return _deep_value(value)
            stack.extend(item)
        elif kind is int or kind is bool or item is None:
            continue
        elif kind is not float or item != item:  # NaN is not equal to itself
            break
    else:
        return value
    _not_json(_problem(value) or "a value that is not JSON", value)


def _deep_value(value: Any) -> Any:
    """`_json_value` of a value of more than `MAX_DEPTH` containers: the same walk, also
    counting levels (a marker on the stack per container), up to `_DEEP_CONTAINERS`."""
    stack = [value]
    pop, push = stack.pop, stack.append
    depth = 0
    budget = _DEEP_CONTAINERS
    while stack:
        item = pop()
        kind = item.__class__
        if kind not in _EXACT:
            if item is _UP:
                depth -= 1
                continue
            kind = next((base for base in _BASES if isinstance(item, base)), kind)
        if kind is str:
            if not item.isascii() and _SURROGATE.search(item):
                break
        elif kind is dict or kind is list:
            depth += 1
            budget -= 1
            if depth > MAX_DEPTH or budget < 0:
                break
            push(_UP)
            if kind is list:
                stack.extend(item)
                continue
            for key, child in item.items():
                if key.__class__ is not str or (not key.isascii() and _SURROGATE.search(key)):
                    _not_json(_problem(value) or "a key that is not JSON", value)
                push(child)
        elif kind is int or kind is bool or item is None:
            continue
        elif kind is not float or item != item:
            break
    else:
        return value
    problem = _problem(value)
    if problem is None:  # more than `_DEEP_CONTAINERS`, or parts of it shared: JSON
        return value
    _not_json(problem, value)


def _json_value_or_missing(value: Any) -> Any:
    """`_json_value`, letting MISSING (the field's "omitted") through to the field."""
    return value if value is MISSING else _json_value(value)


def _problem(value: Any, place: Any = None) -> str | None:
    """What in `value` is not JSON, and where (below `place`, the value's own place in the
    input, `_at`'s form); None when nothing is. The exact walk: each object or array once
    however many places hold it, with the levels under each kept, so that a value
    containing itself is told from one nested too deep, in linear time."""
    on_path: set[int] = set()  # ids of the containers enclosing the item being walked
    height: dict[int, int] = {}  # id of a container walked -> the levels it holds
    # (leaving?, item, where (`_at`), levels above the item)
    stack: list[tuple[bool, Any, Any, int]] = [(False, value, place, 0)]
    while stack:
        leaving, item, where, level = stack.pop()
        if isinstance(item, (dict, list)):
            ident = id(item)
            children = list(item.values() if isinstance(item, dict) else item)
            if leaving:
                on_path.discard(ident)
                height[ident] = 1 + max(
                    (height[id(c)] for c in children if isinstance(c, (dict, list))), default=0
                )
                continue
            if ident in on_path:
                return f"a value that contains itself is not JSON (at {_at(where)})"
            if level + height.get(ident, 1) > MAX_DEPTH:
                return f"nested more than {MAX_DEPTH} levels deep (at {_at(where)})"
            if ident in height:
                continue  # walked already, at another place
            on_path.add(ident)
            stack.append((True, item, where, level))
            if isinstance(item, dict):
                for key in item:
                    if not isinstance(key, str):
                        return f"a key of type {type(key).__name__} is not JSON (at {_at(where)})"
                    if _SURROGATE.search(key):
                        return f"a lone surrogate is not JSON (in a key at {_at(where)})"
            keys = list(item) if isinstance(item, dict) else range(len(item))
            for key, child in zip(reversed(keys), reversed(children), strict=True):
                stack.append((False, child, (where, key), level + 1))
        elif isinstance(item, str):
            if _SURROGATE.search(item):
                return f"a lone surrogate is not JSON (at {_at(where)})"
        elif isinstance(item, float) and item != item:
            return f"NaN is not JSON (at {_at(where)})"
        elif not isinstance(item, _JSON_LEAVES):
            return f"a value of type {type(item).__name__} is not JSON (at {_at(where)})"
    return None


_SHOWN_KEYS = 8  # a deep place shows its first and last keys, and how many there are


def _at(where: Any) -> str:
    """A place in a value as a JSON pointer (RFC 6901: `~` written `~0`, `/` written `~1`):
    `where` is None for the value itself, else (the enclosing place, the key or index)."""
    keys: list[str] = []
    while where is not None:
        where, key = where
        keys.append(str(key).replace("~", "~0").replace("/", "~1"))
    keys.reverse()
    if not keys:
        return "/"
    if len(keys) > _SHOWN_KEYS:
        half = _SHOWN_KEYS // 2
        return "/" + "/".join([*keys[:half], "...", *keys[-half:]]) + f", {len(keys)} steps"
    return "/" + "/".join(keys)


# A free-form value: from Python, JSON values only; from JSON text, which is JSON already,
# only the `NaN` token to refuse. Marked done for both rewrites (`_with_json_values`,
# `_with_nan_refused`), so the NaN rewrite does not wrap it a second time.
_FREE_FORM = core_schema.json_or_python_schema(
    json_schema=core_schema.no_info_after_validator_function(_refuse_nan, core_schema.any_schema()),
    python_schema=core_schema.no_info_plain_validator_function(_json_value),
    metadata={"acp_json_value": True, _NAN_DONE: True},
)


def _json_str(value: str) -> str:
    """A typed string given from Python, unless it holds a lone surrogate, which JSON text
    cannot carry and `model_dump_json` cannot write: then the whole input is refused, as
    for a free-form value (a field that reads malformed values as omitted included)."""
    if value.isascii() or not _SURROGATE.search(value):
        return value
    _not_json(_IN_A_STRING)  # `_python_input` says where, from the whole input


_IN_A_STRING = "a lone surrogate is not JSON"


def _surrogate_at(data: Any) -> str | None:
    """Where in `data` (dicts and lists; a model instance given to the constructor was
    validated already) a string or key holds a lone surrogate."""
    stack: list[tuple[Any, Any]] = [(data, None)]
    seen: set[int] = set()
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return f"at {_at(where)}"
        elif isinstance(item, (dict, list)) and id(item) not in seen:
            seen.add(id(item))
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in reversed(list(pairs)):
                if isinstance(key, str) and _SURROGATE.search(key):
                    return f"in a key at {_at(where)}"
                stack.append((child, (where, key)))
    return None


def _checked_str(node: dict[str, Any]) -> Any:
    """A `str` node that, from Python, refuses lone surrogates; JSON text is unchanged
    (pydantic-core's parser refuses their escapes itself). A named type's `ref` moves to
    the new node."""
    plain: Any = {key: value for key, value in node.items() if key != "ref"}
    return core_schema.json_or_python_schema(
        json_schema=plain,
        python_schema=core_schema.no_info_after_validator_function(_json_str, plain),
        ref=node.get("ref"),
        metadata={"acp_json_value": True},
    )


def _with_json_values(node: Any, handler: GetCoreSchemaHandler | None = None) -> Any:
    """A core schema whose free-form (`any`) values, unknown keys included, take JSON values
    only from Python, and whose strings refuse lone surrogates from Python. Nested models
    are left as built (their own hook did them); a named type (an alias) is rewritten where
    it is defined, once, since models share it."""
    if isinstance(node, list):
        return [_with_json_values(item, handler) for item in node]
    if not isinstance(node, dict) or (node.get("metadata") or {}).get("acp_json_value"):
        return node
    kind = _kind(node)
    if kind == "any":
        return _FREE_FORM
    if kind == "str":
        return _checked_str(node)
    if kind == "definition-ref" and handler is not None:
        _rewrite_alias(node, handler)
        return node
    if kind in _OPAQUE:
        return node
    if kind == "default" and node.get("on_error") == "default" and _free_form_inside(node):
        # Default-on-error would read a value JSON cannot hold as "omitted"; JSON text
        # cannot spell one at all, so it is checked before, outside the fallback.
        return core_schema.json_or_python_schema(
            json_schema=node,
            python_schema=core_schema.chain_schema(
                [core_schema.no_info_plain_validator_function(_json_value_or_missing), node]
            ),
            metadata={"acp_json_value": True},
        )
    out = {
        key: value if key in _NOT_VALIDATION else _with_json_values(value, handler)
        for key, value in node.items()
    }
    if kind == "model-fields" and "extras_schema" not in out:
        out["extras_schema"] = _FREE_FORM
    return out


def _rewrite_alias(node: Any, handler: GetCoreSchemaHandler) -> None:
    """Rewrite, in place and once, the definition a `definition-ref` names, unless it is a
    model (which rewrites its own schema) or another reference."""
    try:
        target: Any = handler.resolve_ref_schema(node)
    except LookupError:  # still being defined (a recursive alias): nothing to do now
        return
    if target is node or target.get("type") in ("model", "definition-ref"):
        return
    metadata = target.get("metadata") or {}
    if metadata.get("acp_json_value"):
        return
    # Marked before the rewrite: an alias that refers to itself through others
    # (`A = list[B]`, `B = list[A]`) then meets itself as done instead of recursing.
    marks = {**metadata, "acp_json_value": True}
    target["metadata"] = marks
    plain = {key: value for key, value in target.items() if key != "ref"}
    plain["metadata"] = metadata  # as it was, without the mark set just now
    rewritten = _with_json_values(plain, handler)
    ref = target.get("ref")
    target.clear()
    target.update(rewritten)
    if ref is not None:
        target["ref"] = ref
    target["metadata"] = {**(rewritten.get("metadata") or {}), **marks}


# Keys of a core schema node that hold no validation schema.
_NOT_VALIDATION = frozenset({"metadata", "serialization"})


def _kind(node: dict[str, Any]) -> str | None:
    """A core schema node's type; None for a mapping of names (a field named `type`)."""
    kind = node.get("type")
    return kind if isinstance(kind, str) else None


def _free_form_inside(node: Any) -> bool:
    """Whether a schema holds an `any` node (and no model, whose input may be an instance)."""
    stack = [node]
    found = False
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            if _kind(item) in _OPAQUE:
                return False
            found = found or _kind(item) == "any"
            stack.extend(v for k, v in item.items() if k not in _NOT_VALIDATION)
    return found
