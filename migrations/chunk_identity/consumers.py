"""Rule `chunk-identity/consumer`: code that consumes what a rewrite changed.

When the migration makes a generator yield a `SessionMessage` upsert before a message's
chunks, whatever iterates that generator gets one more item, of another kind: code that
reads `item.content.text` from every item now fails on the upsert. Such a generator is
recognised in the code as it is after the run (a function that yields an upsert:
`SessionMessage(...)`, its `.model_dump_json()`, or a `session_message` dict), so that
`--check` keeps reporting its consumers on a migrated tree until they are fixed or
acknowledged. Every call of it in the run is looked at:

- a `for` / `async for` loop that only hands each item to a send (`conn.session_update(
  session_id=sid, update=item)`, also serialised or wrapped in a notification) forwards
  the upsert like the chunks: nothing to report;
- a use of the item under a test of its kind (`isinstance(item, SessionMessageChunk)`,
  `item.session_update == "session_message_chunk"`) handles both kinds: nothing either;
- `yield from` makes the enclosing generator one of them: its consumers are looked at;
- anything else (another use of the item, `list(...)`, a comprehension, the generator
  passed as a value) is reported where it consumes it.

An upsert sent to an object of a class of the run (an in-process router or printer that
stands in for the connection: `Printer(conn).session_update(sid, SessionMessage(...))`)
reaches that class's method: its parameter is looked at the same way, and a use of it
as a chunk is reported in the method.

The same holds for in-process queues: when the run puts an upsert into one
(`queue.put(SessionMessage(...))`, as a rewrite of `queue.put(chunk)` does), every item
taken from a queue in the run (`await queue.get()`, `get_nowait()`) is looked at the same
way: forwarded to a send, compared with `None` or tested for its kind, or reported.

Read with `ast` over the whole run (no libcst parse); calls are matched by the
generator's name and dropped only when the module's imports resolve the name elsewhere.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from acp_schema.migrations.chunk_identity.consumer_uses import (
    dotted_name,
    enclosing_function,
    forwarded,
    kind_tested,
    last_name,
    none_test,
    parent_map,
    shared,
)
from acp_schema.migrations.chunk_identity.planning.sites import ENCODERS, SEND_VERBS, SERIALIZERS
from acp_schema.migrations.framework.examples import Invalid, Valid
from acp_schema.migrations.resolution.bindings import (
    MESSAGE_CLASS,
    MESSAGE_TAG,
)
from acp_schema.migrations.resolution.module_symbols import Lookup, ModuleSymbols, definition

TAG_KEYS = frozenset({"sessionUpdate", "session_update"})
QUEUE_PUTS = frozenset({"put", "put_nowait"})
QUEUE_GETS = frozenset({"get", "get_nowait"})
STEP = (
    "handle both kinds (skip items whose session_update is not session_message_chunk, "
    "or forward them all to the send), or acknowledge it with "
    "`# acp-migrate: ok[chunk-identity/consumer]`"
)


@dataclass(frozen=True)
class Module:
    """One module of the run, read with `ast`."""

    name: str
    tree: ast.Module
    package: str | None


@dataclass(frozen=True)
class Consumer:
    line: int
    column: int  # 0-based
    message: str


def _functions(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Module-level functions and methods of module-level classes, with their local
    qualified name (`f`, `Class.f`)."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for inner in node.body:
                if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield f"{node.name}.{inner.name}", inner


def _own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's body, nested functions and classes left out."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))


def yielders(module: Module, known: Iterable[str] = ()) -> set[str]:
    """Qualified names of the module's generators that yield an upsert, or that
    `yield from` one of `known`."""
    found = set()
    names = {q.rpartition(".")[2]: q for q in known}
    if known:  # a re-export (`from .gen import chunks as stream_chunks`) is one too
        symbols = ModuleSymbols.of(module.name, module.tree, module.package)
        for statement in module.tree.body:
            if isinstance(statement, ast.ImportFrom):
                for alias in statement.names:
                    local = alias.asname or alias.name
                    if set(symbols.resolve(local)) & set(known):
                        found.add(f"{module.name}.{local}")
    for local, function in _functions(module.tree):
        for node in _own_nodes(function):
            if (isinstance(node, ast.Yield) and _is_upsert(node.value)) or (
                isinstance(node, ast.YieldFrom) and _calls_one_of(node.value, names)
            ):
                found.add(f"{module.name}.{local}")
                break
    return found


def _is_upsert(value: ast.expr | None) -> bool:
    if isinstance(value, ast.Call):
        func = value.func
        if last_name(func) == MESSAGE_CLASS:
            return True
        if isinstance(func, ast.Attribute) and func.attr in SERIALIZERS:
            return _is_upsert(func.value)
        if dotted_name(func) in ENCODERS and value.args:
            return _is_upsert(value.args[0])
        return False
    if isinstance(value, ast.Dict):
        return any(
            isinstance(k, ast.Constant)
            and k.value in TAG_KEYS
            and isinstance(v, ast.Constant)
            and v.value == MESSAGE_TAG
            for k, v in zip(value.keys, value.values, strict=True)
        )
    if isinstance(value, ast.List | ast.Tuple):
        return any(_is_upsert(e) for e in value.elts)
    return False


def _calls_one_of(value: ast.expr, names: dict[str, str]) -> bool:
    return isinstance(value, ast.Call) and last_name(value.func) in names


@dataclass(frozen=True)
class Received:
    """A use of an upsert as a chunk inside a method of a class of the run."""

    module: str  # where the method is
    consumer: Consumer


def receivers(module: Module, lookup: Lookup) -> list[Received]:
    """The methods of classes of the run that this module sends upserts to, where they
    use the upsert as a chunk (see the module docstring)."""
    symbols = ModuleSymbols.of(module.name, module.tree, module.package)
    parents = parent_map(module.tree)
    found: dict[tuple[str, int, int], Received] = {}
    for node in ast.walk(module.tree):
        if not (isinstance(node, ast.Call) and _sends(node.func)):
            continue  # the migration puts upserts into sends only
        slots = [i for i, a in enumerate(node.args) if _is_upsert(a)]
        names = [k.arg for k in node.keywords if k.arg and _is_upsert(k.value)]
        if not slots and not names:
            continue
        if not isinstance(node.func, ast.Attribute):
            for got in _function_receives(node, slots, names, symbols, lookup, module.name):
                found[(got.module, got.consumer.line, got.consumer.column)] = got
            continue
        owner = _instance_class(node.func.value, symbols, parents)
        target = definition(lookup, owner) if owner else None
        if target is None or not isinstance(target.node, ast.ClassDef):
            continue
        method = _method(target.node, node.func.attr)
        if method is None:
            continue
        arguments = [*method.args.posonlyargs, *method.args.args][1:]
        params = [a.arg for a in arguments]
        chosen = [params[i] for i in slots if i < len(params)] + [n for n in names if n in params]
        for param in chosen:
            annotation = next(a.annotation for a in arguments if a.arg == param)
            if _admits_upserts(annotation):
                continue  # declared to take any update: a type checker holds it to that
            use = _chunk_use(method, param)
            if use is not None:
                message = (
                    f"`{target.node.name}.{method.name}` now also receives SessionMessage "
                    f"upserts (sent before the chunks, line {node.lineno} of {module.name}); "
                    f"it uses `{param}` as a chunk here: {STEP}"
                )
                key = (target.symbols.name, use.lineno, use.col_offset)
                found[key] = Received(
                    target.symbols.name, Consumer(use.lineno, use.col_offset, message)
                )
    return list(found.values())


def _sends(func: ast.expr) -> bool:
    name = func.attr if isinstance(func, ast.Attribute) else last_name(func)
    return name is not None and name.lstrip("_").lower().startswith(SEND_VERBS)


def _function_receives(
    call: ast.Call,
    slots: list[int],
    names: list[str],
    symbols: ModuleSymbols,
    lookup: Lookup,
    caller: str,
) -> Iterator[Received]:
    """A send-like function of the run (`send_update(SessionMessage(...))`) that gets an
    upsert: reported where it does anything with it but hand it to a send (a test of its
    kind may drop it: the participant IDs would be lost)."""
    dotted = dotted_name(call.func)
    for qualified in symbols.resolve(dotted) if dotted else []:
        target = definition(lookup, qualified)
        if target is None or not isinstance(target.node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        function = target.node
        arguments = [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
        params = [a.arg for a in arguments]
        positional = [*function.args.posonlyargs, *function.args.args]
        chosen = [positional[i].arg for i in slots if i < len(positional)]
        chosen += [n for n in names if n in params]
        if len(chosen) < len(slots) + len(names):  # `*args`, `**kwargs`: not followed
            chosen = params or ["*"]
        for param in chosen:
            annotation = next((a.annotation for a in arguments if a.arg == param), None)
            if _admits_upserts(annotation):
                continue  # declared to take any update: a type checker holds it to that
            use = _not_forwarded(function, param)
            if use is None:
                continue
            message = (
                f"`{function.name}` now also receives SessionMessage upserts (sent before the "
                f"chunks, line {call.lineno} of {caller}); it does not just send `{param}` on "
                f"here, so it may drop the upsert or use it as a chunk: {STEP}"
            )
            yield Received(target.symbols.name, Consumer(use.lineno, use.col_offset, message))


def _not_forwarded(
    function: ast.FunctionDef | ast.AsyncFunctionDef, param: str
) -> ast.Name | ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The first use of `param` in `function` that is not handed to a send as it is
    (the function itself when it has no such parameter to follow)."""
    if param == "*":
        return function
    parents = parent_map(function)
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Name)
            and node.id == param
            and isinstance(node.ctx, ast.Load)
            and not forwarded(node, parents)
            and not _returned_wrapped(node, parents)
        ):
            return node
    return None


def _returned_wrapped(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Returned as it is or inside dicts, lists and tuples (`notify(sid, update)` building
    the notification its caller sends): the caller's send gets it whole."""
    current = node
    while True:
        holder = parents.get(current)
        if isinstance(holder, ast.Return):
            return True
        wraps = isinstance(holder, ast.List | ast.Tuple) or (
            isinstance(holder, ast.Dict) and current in holder.values
        )
        if not wraps or holder is None:
            return False
        current = holder


def _instance_class(
    value: ast.expr, symbols: ModuleSymbols, parents: dict[ast.AST, ast.AST]
) -> str | None:
    """The class a name is shown to hold: bound once in its function (or the module)
    to a call of a class, or a parameter annotated with one."""
    if not isinstance(value, ast.Name):
        return None
    scope = enclosing_function(value, parents)
    bindings: list[ast.AST] = []
    for node in ast.walk(scope or _root(parents, value)):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == value.id for t in node.targets
        ):
            bindings.append(node.value)
        elif isinstance(node, ast.arg) and node.arg == value.id:
            bindings.append(node.annotation if node.annotation is not None else node)
    if len(bindings) != 1:
        return None
    bound = bindings[0]
    called = bound.func if isinstance(bound, ast.Call) else bound
    dotted = dotted_name(called) if isinstance(called, ast.expr) else None
    resolved = symbols.resolve(dotted) if dotted else []
    return resolved[0] if len(resolved) == 1 else None


def _root(parents: dict[ast.AST, ast.AST], node: ast.AST) -> ast.AST:
    while node in parents:
        node = parents[node]
    return node


def _method(node: ast.ClassDef, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and statement.name == name:
            return statement
    return None


def _admits_upserts(annotation: ast.expr | None) -> bool:
    """An annotation that names the message or the union of every update kind."""
    if annotation is None:
        return False
    nodes = list(ast.walk(annotation))
    words = {last_name(n) for n in nodes if isinstance(n, ast.Name | ast.Attribute)}
    for node in nodes:  # quoted annotations
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            words.update(re.findall(r"\w+", node.value))
    return bool(words & {MESSAGE_CLASS, "SessionUpdate"})


def _chunk_use(method: ast.AST, param: str) -> ast.Name | None:
    """The first use of `param` in the method that is not forwarded, shared by both
    kinds, a `None` test, or under a test of its kind."""
    parents = parent_map(method)
    for node in ast.walk(method):
        if (
            isinstance(node, ast.Name)
            and node.id == param
            and isinstance(node.ctx, ast.Load)
            and not shared(node, parents)
            and not forwarded(node, parents)
            and not none_test(node, parents)
            and not kind_tested(node, param, parents, method)
        ):
            return node
    return None


def puts_upserts(module: Module) -> bool:
    """Whether the module puts an upsert into an in-process queue."""
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in QUEUE_PUTS
        and bool(node.args)
        and _is_upsert(node.args[0])
        for node in ast.walk(module.tree)
    )


def queue_consumers(module: Module) -> list[Consumer]:
    """Items taken from a queue (`get()` without arguments, `get_nowait()`) and used as
    chunks: reported when the run puts upserts into queues."""
    parents = parent_map(module.tree)
    found = []
    for node in ast.walk(module.tree):
        caller = parents.get(node)
        if (
            isinstance(node, ast.Attribute)
            and node.attr in QUEUE_GETS
            and not (isinstance(caller, ast.Call) and caller.func is node)
        ):
            # `iter(q.get, None)`, `map(q.get, ...)`: items the run cannot follow
            message = (
                "this run puts SessionMessage upserts into in-process queues before the "
                f"chunks; `{dotted_name(node) or node.attr}` is taken as a value here, so the "
                f"items it returns are used where the run cannot look: {STEP}"
            )
            found.append(Consumer(node.lineno, node.col_offset, message))
            continue
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in QUEUE_GETS
            and not node.args
            and not node.keywords
        ):
            continue
        taken: ast.expr = node
        holder = parents.get(node)
        if isinstance(holder, ast.Await):
            taken, holder = holder, parents.get(holder)
        problem = _taken(taken, holder, parents)
        if problem is not None:
            message = (
                "this run puts SessionMessage upserts into in-process queues before the "
                f"chunks (the participant IDs travel there); {problem}: {STEP}"
            )
            found.append(Consumer(node.lineno, node.col_offset, message))
    return found


def _taken(taken: ast.expr, holder: ast.AST | None, parents: dict[ast.AST, ast.AST]) -> str | None:
    """Why an item taken from a queue is used as a chunk (None: forwarded or handled)."""
    if forwarded(taken, parents):
        return None
    target: ast.expr | None = None
    if isinstance(holder, ast.Assign) and len(holder.targets) == 1:
        target = holder.targets[0]
    elif isinstance(holder, ast.NamedExpr):
        target = holder.target
    if not isinstance(target, ast.Name):
        return "the item taken here is used without a look at its kind"
    scope = enclosing_function(holder, parents) or holder
    if scope is None:
        return None
    for node in ast.walk(scope):
        if (
            isinstance(node, ast.Name)
            and node.id == target.id
            and isinstance(node.ctx, ast.Load)
            and not shared(node, parents)
            and not forwarded(node, parents)
            and not none_test(node, parents)
            and not kind_tested(node, target.id, parents, scope)
        ):
            return f"the item is used as a chunk (line {node.lineno})"
    return None


def consumers(module: Module, generators: Iterable[str]) -> list[Consumer]:
    """The places in `module` that consume one of `generators` as if it yielded only
    chunks (see the module docstring)."""
    every = set(generators)
    by_name = {q.rpartition(".")[2]: q for q in every}
    if not by_name:
        return []
    _add_aliases(module.tree, by_name)
    symbols = ModuleSymbols.of(module.name, module.tree, module.package)
    parents = parent_map(module.tree)
    found = []
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Call):
            name = last_name(node.func)
            if name in by_name and _may_be(symbols, node.func, every):
                problem = _consumed(node, parents)
                if problem is not None:
                    found.append(_report(node, by_name[name], problem))
        elif isinstance(node, ast.Name) and node.id in by_name and isinstance(node.ctx, ast.Load):
            holder = parents.get(node)
            if not (isinstance(holder, ast.Call) and holder.func is node) and _may_be(
                symbols, node, every
            ):
                found.append(_report(node, by_name[node.id], "the generator is used as a value"))
    return sorted(found, key=lambda c: (c.line, c.column))


def _add_aliases(tree: ast.Module, by_name: dict[str, str]) -> None:
    """Other names the module gives the generators: `from app.gen import chunks as
    produce`, `produce = gen.stream` (in any scope)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.asname and alias.name in by_name:
                    by_name.setdefault(alias.asname, by_name[alias.name])
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            leaf = (
                last_name(node.value) if isinstance(node.value, ast.Name | ast.Attribute) else None
            )
            if leaf in by_name:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        by_name.setdefault(target.id, by_name[leaf])


def _report(node: ast.expr, qualified: str, problem: str) -> Consumer:
    name = qualified.rpartition(".")[2]
    message = (
        f"`{name}` now yields a SessionMessage upsert before a message's chunks "
        f"(the participant IDs travel there); {problem}: {STEP}"
    )
    return Consumer(node.lineno, node.col_offset, message)


def _may_be(symbols: ModuleSymbols, func: ast.expr, generators: set[str]) -> bool:
    """False only when the module's imports resolve the name to another function than
    the generators (a re-export of one is one of them)."""
    dotted = dotted_name(func)
    if dotted is None or dotted.startswith(("self.", "cls.")):
        return True
    resolved = symbols.resolve(dotted)
    return (
        not resolved
        or bool(generators & set(resolved))
        or any(r.startswith("builtins.") for r in resolved)
    )


def _consumed(call: ast.Call, parents: dict[ast.AST, ast.AST]) -> str | None:
    """Why this call's items are used as chunks (None: they are forwarded, or handled)."""
    holder = parents.get(call)
    if isinstance(holder, ast.YieldFrom):
        return None  # the enclosing generator is one of them now (see `yielders`)
    if isinstance(holder, ast.Await):
        return None  # a coroutine's result, not the generator's items
    if not (isinstance(holder, ast.For | ast.AsyncFor) and holder.iter is call):
        return "its items are taken here without a look at their kind"
    if not isinstance(holder.target, ast.Name):
        return "its items are unpacked here as chunks"
    item = holder.target.id
    for statement in holder.body:
        for node in ast.walk(statement):
            if (
                isinstance(node, ast.Name)
                and node.id == item
                and isinstance(node.ctx, ast.Load)
                and not shared(node, parents)
                and not forwarded(node, parents)
                and not kind_tested(node, item, parents, holder)
            ):
                return f"the loop uses each item as a chunk (line {node.lineno})"
    return None


# generator is rewritten by chunk-identity/constructor; `lines` are this rule's warnings).
EXAMPLES = (
    Valid(
        """
        from acp_schema.v2 import SessionMessageChunk, TextContent

        def chunks(mid, me, parts):
            for part in parts:
                block = TextContent(text=part)
                yield SessionMessageChunk(message_id=mid, content=block, sender_session_id=me)

        async def relay(conn, sid, mid, me, parts):
            for chunk in chunks(mid, me, parts):
                await conn.session_update(session_id=sid, update=chunk)
        """,
        why="the loop forwards every item to the send, the upsert too",
    ),
    Invalid(
        """
        from acp_schema.v2 import SessionMessageChunk, TextContent

        def chunks(mid, me, parts):
            for part in parts:
                block = TextContent(text=part)
                yield SessionMessageChunk(message_id=mid, content=block, sender_session_id=me)

        def transcript(mid, me, parts):
            return "".join(chunk.content.text for chunk in chunks(mid, me, parts))
        """,
        lines=(9,),
        why="reads the content of every item, which the upsert does not have",
    ),
)
