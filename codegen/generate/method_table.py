"""The generated `methods.py`: the JSON-RPC method table of one schema, and the typed
access to a decoded message's params by method name (`METHODS.params_of`).

Built as libcst nodes: every string that comes from the schema (method names, sides)
becomes a literal node, and every class name is checked to be an identifier, so no schema
text is ever read as code. Also the small node helpers the package facade uses.
"""

from __future__ import annotations

import ast
import keyword
from collections.abc import Iterable, Mapping

import libcst as cst

from ..method_roles import MethodEntry, MethodRoles
from .package_files import MODELS_MODULE

# The table's class in the generated module: a leading underscore keeps it apart from the
# schema's class names (the class-name rule makes CamelCase identifiers).
TABLE_CLASS = "_MethodTable"


def literal(value: str) -> cst.SimpleString:
    """A string from the schema as a Python literal: `repr` escapes quotes, backslashes,
    newlines and NULs, so no schema text is ever read as code."""
    return cst.SimpleString(repr(value))


def identifier(name: str) -> cst.Name:
    # Class names come from the class-name rule (class_names.py); check rather than trust.
    if not name.isidentifier() or keyword.iskeyword(name):
        raise RuntimeError(f"{name!r} is not a Python identifier")
    return cst.Name(name)


def statement(code: str) -> cst.SimpleStatementLine:
    parsed = cst.parse_statement(code)  # fixed code, no schema text
    assert isinstance(parsed, cst.SimpleStatementLine)
    return parsed.with_changes(leading_lines=[cst.EmptyLine()])


def mirrored_names(fast_source: str) -> frozenset[str]:
    """The Structs and aliases a generated `fast.py` defines at its top level (also inside
    `if TYPE_CHECKING:`/`else:`), read from the source the generator just made."""
    names: set[str] = set()
    pending: list[ast.stmt] = list(ast.parse(fast_source).body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.If):
            pending += [*node.body, *node.orelse]
    return frozenset(names)


def _keyword_arg(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(
        value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
    )


def _method_call(entry: MethodEntry, classes: Mapping[str, str]) -> cst.Call:
    params = identifier(classes[entry.params]) if entry.params else cst.Name("None")
    args = [
        cst.Arg(literal(entry.name)),
        cst.Arg(literal(entry.side)),
        _keyword_arg("params", params),
    ]
    if entry.result is not None:
        args.append(_keyword_arg("result", identifier(classes[entry.result])))
    if entry.kind == "notification":
        args.append(_keyword_arg("notification", cst.Name("True")))
    return cst.Call(cst.Name("Method"), args)


def _union(members: Iterable[cst.BaseExpression]) -> cst.BaseExpression:
    members = list(members)
    union = members[0]
    for member in members[1:]:
        union = cst.BinaryOperation(union, cst.BitOr(), member)
    return union


def _params_type(
    entries: list[MethodEntry], classes: Mapping[str, str], fast: frozenset[str]
) -> cst.BaseExpression:
    """What `decode` gives as the params of a method: the model, or its Struct where the
    fast module mirrors it (`None` for a method without params); every entry of the name."""
    members: list[cst.BaseExpression] = []
    seen: set[str] = set()
    for entry in entries:
        names = [classes[entry.params]] if entry.params else []
        for name in names:
            if name in seen:
                continue
            seen.add(name)
            members.append(identifier(name))
            if name in fast:
                members.append(cst.Attribute(cst.Name("fast"), identifier(name)))
        if not entry.params and "None" not in seen:
            seen.add("None")
            members.append(cst.Name("None"))
    return _union(members)


def _params_of(
    entries: list[MethodEntry], classes: Mapping[str, str], fast: frozenset[str]
) -> list[cst.FunctionDef]:
    """`params_of(decoded, "name")` overloads, one per method name, then the general one."""
    by_name: dict[str, list[MethodEntry]] = {}
    for entry in entries:
        by_name.setdefault(entry.name, []).append(entry)
    template = cst.parse_statement(
        "@overload\ndef params_of(self, decoded: Decoded, name: NAME) -> RESULT: ...\n"
    )
    assert isinstance(template, cst.FunctionDef)
    overloads = []
    for name, group in by_name.items():
        annotation = cst.Subscript(
            cst.Name("Literal"), [cst.SubscriptElement(cst.Index(literal(name)))]
        )
        params = template.params.params
        typed = params[2].with_changes(annotation=cst.Annotation(annotation))
        overloads.append(
            template.with_changes(
                params=template.params.with_changes(params=[*params[:2], typed]),
                returns=cst.Annotation(_params_type(group, classes, fast)),
            )
        )
    signature = "def params_of(self, decoded: Decoded, name: str) -> _AnyParams:"
    general = cst.parse_statement(f"@overload\n{signature} ...\n")
    implementation = cst.parse_statement(
        f"{signature}\n    return super().params_of(decoded, name)\n"
    )
    assert isinstance(general, cst.FunctionDef) and isinstance(implementation, cst.FunctionDef)
    if not overloads:  # a schema without methods: one overload alone is not allowed
        return [implementation]
    return [*overloads, general, implementation]


def methods_module(
    roles: MethodRoles,
    file_header: str,
    classes: Mapping[str, str],
    fast: frozenset[str] = frozenset(),
) -> str:
    """The method table, from the schema's `x-method`/`x-side` keywords and envelopes
    (method_roles.py). `classes` maps definition names to class names, `fast` names what
    the fast module beside it mirrors (`mirrored_names`)."""
    entries = [
        e
        for e in roles.entries
        if all(name is None or name in classes for name in (e.params, e.result))
    ]
    used = sorted({classes[n] for e in entries for n in (e.params, e.result) if n is not None})
    sides = sorted({e.side for e in entries})
    side_type: cst.BaseExpression = (
        cst.Subscript(
            cst.Name("Literal"),
            [cst.SubscriptElement(cst.Index(literal(side))) for side in sides],
        )
        if sides
        else cst.Name("str")
    )
    table = cst.Call(
        cst.Name(TABLE_CLASS),
        [cst.Arg(cst.List([cst.Element(_method_call(e, classes)) for e in entries]))],
    )
    body: list[cst.SimpleStatementLine | cst.BaseCompoundStatement] = [
        statement('"""JSON-RPC methods of this protocol version: name, handling side, '
                  'params, result."""'),
        statement("from __future__ import annotations"),
        statement("from typing import TYPE_CHECKING, Any, Literal, overload"),
        statement("from acp_schema._jsonrpc import Method, MethodTable"),
    ]  # fmt: skip
    if used:
        names = [cst.ImportAlias(identifier(name)) for name in used]
        body.append(
            cst.SimpleStatementLine(
                [cst.ImportFrom(cst.Name(MODELS_MODULE), names, relative=[cst.Dot()])],
                leading_lines=[cst.EmptyLine()],
            )
        )
    fast_import = cst.parse_statement(
        "if TYPE_CHECKING:\n"
        "    from acp_schema._fast import FastStruct\n"
        "    from acp_schema._jsonrpc import Decoded\n"
        "    from acp_schema._runtime import AcpModel\n\n"
        "    from . import fast\n\n"
        "    _AnyParams = AcpModel | FastStruct[Any] | None\n"
    )
    body.append(fast_import.with_changes(leading_lines=[cst.EmptyLine()]))
    body.append(
        cst.SimpleStatementLine(
            [cst.Assign([cst.AssignTarget(cst.Name("Side"))], side_type)],
            leading_lines=[cst.EmptyLine()],
        )
    )
    docstring = statement(
        '"""The method table; `params_of(decoded, name)` is typed by the method name."""'
    ).with_changes(leading_lines=[])
    table_class = cst.ClassDef(
        name=cst.Name(TABLE_CLASS),
        bases=[cst.Arg(cst.parse_expression("MethodTable[Side]"))],
        body=cst.IndentedBlock([docstring, *_params_of(entries, classes, fast)]),
        leading_lines=[cst.EmptyLine(), cst.EmptyLine()],
    )
    body.append(table_class)
    body.append(
        cst.SimpleStatementLine(
            [cst.AnnAssign(cst.Name("METHODS"), cst.Annotation(cst.Name(TABLE_CLASS)), table)],
            leading_lines=[cst.EmptyLine(), cst.EmptyLine()],
        )
    )
    body[0] = body[0].with_changes(leading_lines=[])
    return file_header + "\n" + cst.Module(body).code
