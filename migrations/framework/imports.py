"""Adding `from module import name` to a module, as part of the one rewriting pass.

libcst's AddImportsVisitor would do this too, but it resolves its own metadata over the
whole module again, which costs as much as the migration itself. The needs here are
narrow: a name from a module, merged into an existing `from module import ...` line
when there is one, else a new line after the module's absolute imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import libcst as cst

from acp_schema.migrations.framework.syntax import code, is_docstring


def add_from_imports(
    module: cst.Module, wanted: Iterable[tuple[str, str, str | None]]
) -> cst.Module:
    body = list(module.body)
    for source, name, asname in sorted(set(wanted), key=lambda w: (w[0], w[1], w[2] or "")):
        index = _existing(body, source)
        if index is None:
            new = cst.ImportFrom(module=_dotted(source), names=[_alias(name, asname)])
            body.insert(_new_position(body), cst.SimpleStatementLine(body=[new]))
            continue
        line = body[index]
        assert isinstance(line, cst.SimpleStatementLine)
        statement = line.body[0]
        assert isinstance(statement, cst.ImportFrom)
        assert not isinstance(statement.names, cst.ImportStar)
        if any(_imports(alias, name, asname) for alias in statement.names):
            continue
        names = _merged(list(statement.names), _alias(name, asname))
        body[index] = line.with_changes(body=[statement.with_changes(names=names)])
    return module.with_changes(body=body)


def _dotted(name: str) -> cst.Name | cst.Attribute:
    parts = name.split(".")
    node: cst.Name | cst.Attribute = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def _alias(name: str, asname: str | None) -> cst.ImportAlias:
    return cst.ImportAlias(
        name=cst.Name(name), asname=cst.AsName(name=cst.Name(asname)) if asname else None
    )


def _imports(alias: cst.ImportAlias, name: str, asname: str | None) -> bool:
    own = alias.asname.name if alias.asname is not None else None
    own_name = own.value if isinstance(own, cst.Name) else None
    return code(alias.name) == name and own_name == asname


def _existing(body: Sequence[cst.BaseStatement], source: str) -> int | None:
    for index, line in enumerate(body):
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            continue
        statement = line.body[0]
        if (
            isinstance(statement, cst.ImportFrom)
            and not statement.relative
            and statement.module is not None
            and code(statement.module) == source
            and not isinstance(statement.names, cst.ImportStar)
        ):
            return index
    return None


def _merged(names: list[cst.ImportAlias], new: cst.ImportAlias) -> list[cst.ImportAlias]:
    """`names` with `new` in its sorted place (at the end if they are not sorted),
    punctuated like its neighbours."""
    keys = [code(alias.name) for alias in names]
    position = len(names)
    if keys == sorted(keys):
        position = next((i for i, key in enumerate(keys) if key > code(new.name)), len(names))
    single = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    if position < len(names):
        neighbour = names[position - 1] if position else names[position]
        comma = neighbour.comma if isinstance(neighbour.comma, cst.Comma) else single
        return [*names[:position], new.with_changes(comma=comma), *names[position:]]
    last = names[-1]
    separator = names[-2].comma if len(names) > 1 else single
    if not isinstance(separator, cst.Comma):
        separator = single
    return [*names[:-1], last.with_changes(comma=separator), new.with_changes(comma=last.comma)]


def _is_import(line: cst.BaseStatement) -> bool:
    return isinstance(line, cst.SimpleStatementLine) and all(
        isinstance(s, cst.Import | cst.ImportFrom) for s in line.body
    )


def _new_position(body: Sequence[cst.BaseStatement]) -> int:
    """Just after the last absolute import of the block of imports that opens the module
    (so before its relative imports, and after `__future__` imports and the docstring)."""
    start = 1 if body and is_docstring(body[0]) else 0
    position = start
    for index in range(start, len(body)):
        line = body[index]
        if not _is_import(line):
            break
        assert isinstance(line, cst.SimpleStatementLine)
        statement = line.body[0]
        if not (isinstance(statement, cst.ImportFrom) and statement.relative):
            position = index + 1
    return position
