"""Generate the bindings of one ACP schema: load+check -> pre-pass -> datamodel-codegen ->
libcst post-pass -> ruff format, written all at once or not at all."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import libcst as cst
from ruff import find_ruff_bin  # type: ignore[import-untyped, unused-ignore]

from acp_schema.cli_common import ignore_interrupts
from acp_schema.cli_output import diagnostic

from ..class_names import class_name
from ..loaded_schema import LoadedSchema, load_schema_file
from ..method_roles import definitions
from ..schema_check import Problem, SchemaError, meta_schema_problems
from ..schema_walk import DECODING_KEYWORDS
from .fast_target import fast_module
from .method_table import identifier as _identifier
from .method_table import literal as _literal
from .method_table import methods_module, mirrored_names
from .method_table import statement as _statement
from .module_level import RUNTIME_MODULE
from .out_dir import inspect_out_dir, write_out_dirs
from .package_files import (
    BUNDLED_COMMAND,
    GENERATED_FILES,
    GENERATOR,
    MODELS_MODULE,
    NOTIFICATIONS_MODULE,
    header_lines,
    seal,
)
from .postpass import PostpassPlan, finish_module
from .prepass import NamingError, prepass

# Wire keys that the revision removed from a definition. Decoders ignore them and never
# write them back (spec: a chunk that still sends participant IDs is accepted, those keys
# are not part of it). Applied only where the schema no longer declares the property.
IGNORED_KEYS: Mapping[str, tuple[str, ...]] = {
    "SessionMessageChunk": ("senderSessionId", "recipientSessionId"),
}

# Flags chosen by measurement; each keeps a property of the output we rely on.
CODEGEN_FLAGS = (
    "--input-file-type=jsonschema",
    "--output-model-type=pydantic_v2.BaseModel",
    "--target-python-version=3.10",
    "--use-annotated",  # the post-pass adds markers inside Annotated[...]
    "--snake-case-field",
    "--use-type-alias",  # unions become named TypeAliasType aliases
    "--skip-root-model",
    "--use-missing-sentinel",  # omitted is MISSING, distinct from null
    "--remove-special-field-name-prefix",  # `_meta` -> `meta`
    "--use-schema-description",
    "--disable-timestamp",  # deterministic output
    # Real annotations, not strings: importing then skips compiling ~1,200 annotation
    # strings (docs/performance.md); forward references get quoted plus model_rebuild().
    "--disable-future-imports",
    "--formatters=ruff-format",
    f"--base-class={RUNTIME_MODULE}.AcpModel",
    "--field-extra-keys",
    *DECODING_KEYWORDS,
)


def failure_summary(exc: RuntimeError) -> str:
    """One line for a tool that failed: what failed and the last line it printed (its
    stderr may hold a whole traceback of its own)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    # pydantic ends its errors with a link to its documentation: the reason is above it
    lines = [line for line in lines if not line.startswith("For further information visit")]
    if len(lines) <= 1:
        return lines[0] if lines else "failed"
    return f"{lines[0].rstrip(':')}: {lines[-1]}"


@dataclass(frozen=True)
class GeneratedFile:
    name: str
    text: str


def header(schema_name: str, digest: str, command: str = BUNDLED_COMMAND) -> str:
    tool = metadata.version(GENERATOR)
    if not schema_name.isprintable():  # a file name must not end the comment line
        schema_name = repr(schema_name)
    if not command.isprintable():
        command = repr(command)
    return header_lines(schema_name, tool, digest, command)


def _stage(schema_path: Path, what: str, progress: bool) -> None:
    """One line on stderr per stage of a render, when the command line asks for them (the
    renders of `generate v1 v2` run in parallel processes, so each line names its schema)."""
    if progress:
        where = f"{schema_path.parent.name}/{schema_path.name}"
        diagnostic(f"acp-schema generate: {where}: {what}")


@contextmanager
def _codegen_started(
    schema: dict[str, Any], file_header: str, workdir: Path
) -> Iterator[Callable[[], str]]:
    """Start datamodel-codegen on `schema`; yield a function that waits for its module.

    The caller can work while it runs; leaving the block early stops it.
    """
    source = workdir / "schema.json"
    target = workdir / "models.py"
    source.write_text(json.dumps(schema, indent=1, sort_keys=False), encoding="utf-8")
    command = [
        sys.executable, "-m", "datamodel_code_generator",
        f"--input={source}", f"--output={target}", f"--custom-file-header={file_header}",
        *CODEGEN_FLAGS,
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def finish() -> str:
        _, stderr = process.communicate()
        if process.returncode != 0:
            raise RuntimeError(f"datamodel-codegen failed ({process.returncode}):\n{stderr}")
        return target.read_text(encoding="utf-8")

    try:
        yield finish
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def _run_codegen(schema: dict[str, Any], file_header: str, workdir: Path) -> str:
    with _codegen_started(schema, file_header, workdir) as finish:
        return finish()


def ruff_format(text: str, filename: str) -> str:
    # The binary itself: `python -m ruff` starts an interpreter only to exec it.
    command = [find_ruff_bin(), "format", "--line-length=100"]
    command += ["--stdin-filename", filename, "-"]
    done = subprocess.run(command, input=text, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"ruff format failed on {filename}:\n{done.stderr}")
    return done.stdout


_FACADE_RUNTIME = """\
# Hidden from type checkers: a module `__getattr__` makes unknown names `Any` to them.
if not TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        if name not in __all__:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        # What the notifications carry comes alone; any other name needs all the models.
        names = _NOTIFICATIONS if name in _NOTIFICATIONS else __all__
        part = ".NOTIFICATIONS_MODULE" if names is _NOTIFICATIONS else ".MODELS_MODULE"
        models = importlib.import_module(part, __name__)
        # Bound here once, so that later lookups skip this function.
        globals().update({public: getattr(models, public) for public in names})
        return getattr(models, name)

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
"""


def _facade_module(names: Iterable[str], notified: Iterable[str], file_header: str) -> str:
    """The package's `__init__.py`: every public name of the models module (`_models.py`),
    re-exported for type checkers and imported on first use at run time, so that importing
    the package or its `fast` module does not import pydantic and the models; a name of
    `notified` (the `_notifications.py` part) imports that part alone."""
    public = sorted(name for name in names if not name.startswith("_"))
    carried = [_identifier(name).value for name in sorted(notified) if not name.startswith("_")]
    aliases = [
        cst.ImportAlias(_identifier(name), asname=cst.AsName(cst.Name(name))) for name in public
    ]
    body: list[cst.SimpleStatementLine | cst.BaseCompoundStatement] = [
        _statement('"""The models of this protocol version, imported on first use.\n\n'
                   "Importing the package or its `fast` module imports neither the models nor "
                   'pydantic."""'),
        _statement("from __future__ import annotations"),
        _statement("import importlib"),
        _statement("from typing import TYPE_CHECKING"),
    ]  # fmt: skip
    body[0] = body[0].with_changes(leading_lines=[])
    if aliases:
        imports = cst.ImportFrom(cst.Name(MODELS_MODULE), aliases, relative=[cst.Dot()])
        block = cst.IndentedBlock([cst.SimpleStatementLine([imports])])
        body.append(cst.If(cst.Name("TYPE_CHECKING"), block, leading_lines=[cst.EmptyLine()]))
    exported = cst.List([cst.Element(_literal(name)) for name in public])
    body.append(
        cst.SimpleStatementLine(
            [cst.Assign([cst.AssignTarget(cst.Name("__all__"))], exported)],
            leading_lines=[cst.EmptyLine()],
        )
    )
    part = cst.Call(
        cst.Name("frozenset"),
        [cst.Arg(cst.Set([cst.Element(_literal(n)) for n in carried]))] if carried else [],
    )
    body.append(
        cst.SimpleStatementLine(
            [
                cst.AnnAssign(
                    cst.Name("_NOTIFICATIONS"),
                    cst.Annotation(cst.parse_expression("frozenset[str]")),
                    part,
                )
            ],
            leading_lines=[cst.EmptyLine()],
        )
    )
    fixed = _FACADE_RUNTIME.replace("MODELS_MODULE", _identifier(MODELS_MODULE).value)
    fixed = fixed.replace("NOTIFICATIONS_MODULE", _identifier(NOTIFICATIONS_MODULE).value)
    runtime = cst.parse_module(fixed)  # fixed code, no schema text
    first, *rest = runtime.body  # its comment is the parsed module's header
    body += [first.with_changes(leading_lines=[cst.EmptyLine(), *runtime.header]), *rest]
    return file_header + "\n" + cst.Module(body).code


def _method_problems(schema: dict[str, Any]) -> list[Problem]:
    """An ACP-style schema has methods; without any, the method table would be empty."""
    if any(isinstance(body, dict) and "x-method" in body for _, _, body in definitions(schema)):
        return []
    message = "no definition carries x-method, so there are no methods to generate"
    return [Problem("/$defs", message)]


def render(
    source: Path | LoadedSchema, command: str = BUNDLED_COMMAND, progress: bool = False
) -> list[GeneratedFile]:
    """Generate the binding files of a schema (its path, or the schema loaded with
    `meta_schema=False`), in memory.

    Nothing is produced from a schema with problems. The meta-schema validation, the slow
    part of the checks, runs while datamodel-codegen works on the pre-pass output; the
    cheaper checks run first, so the pre-pass only ever sees resolvable, well-formed input.
    `command` goes into each file's header (what writes it again); `progress` prints the
    stages on stderr.
    """
    loaded = source if isinstance(source, LoadedSchema) else _loaded(source, progress)
    schema, schema_path = loaded.document, loaded.path
    file_header = header(schema_path.name, loaded.digest, command)
    try:
        pre = prepass(schema)
    except NamingError as exc:
        raise SchemaError(schema_path, [Problem("", str(exc))]) from None
    declared = pre.schema.get("$defs", {})
    ignored = {
        name: keys
        for name, keys in IGNORED_KEYS.items()
        if name in declared and not set(keys) & set(declared[name].get("properties", {}))
    }
    _stage(schema_path, "datamodel-codegen (and the meta-schema check meanwhile)", progress)
    with (
        tempfile.TemporaryDirectory(prefix="acp-schema-") as tmp,
        _codegen_started(pre.schema, file_header, Path(tmp)) as finish,
    ):
        problems = meta_schema_problems(schema) or _method_problems(schema)
        if problems:
            raise SchemaError(schema_path, problems)
        models = finish()
    _stage(schema_path, "post-pass (decoding markers, tagged unions, builders)", progress)
    roles = loaded.roles
    notified = [
        class_name(e.params) for e in roles.entries if e.kind == "notification" and e.params
    ]
    plan = PostpassPlan(unions=pre.unions, ignored_keys=ignored)
    finished = finish_module(models, plan, split_for=notified)
    assert finished.parts is not None
    models = finished.code  # all of it, executed to derive the fast path (not written)
    defined = finished.names
    classes = {
        name: class_name(name)
        for e in roles.entries
        for name in (e.params, e.result)
        if name is not None and class_name(name) in declared
    }
    missing = sorted(set(classes.values()) - defined)
    if missing:  # the generator named a class otherwise than the class-name rule says
        message = f"datamodel-codegen did not emit the classes {', '.join(missing)} by name"
        raise SchemaError(schema_path, [Problem("", f"cannot be generated: {message}")])
    _stage(schema_path, "method table, fast path, package facade", progress)
    fast = ruff_format(fast_module(models, file_header), "fast.py")
    table = methods_module(roles, file_header, classes, mirrored_names(fast))
    methods = ruff_format(table, "methods.py")
    parts = finished.parts
    facade = ruff_format(_facade_module(defined, parts.names, file_header), "__init__.py")
    rendered = [
        GeneratedFile("__init__.py", seal(facade)),
        GeneratedFile(
            f"{NOTIFICATIONS_MODULE}.py",
            seal(ruff_format(parts.notifications, f"{NOTIFICATIONS_MODULE}.py")),
        ),
        GeneratedFile(
            f"{MODELS_MODULE}.py", seal(ruff_format(parts.models, f"{MODELS_MODULE}.py"))
        ),
        GeneratedFile("methods.py", seal(methods)),
        GeneratedFile("fast.py", seal(fast)),
        GeneratedFile("py.typed", ""),
    ]
    if _unusual_names(schema):
        _check_imports(rendered)
    return rendered


# Names that reach the generated code as plain identifiers or simple literals: any other
# name goes through escaping (`repr`), the class-name rule or msgspec's field renames.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_$.-]*")


def _unusual_names(schema: dict[str, Any]) -> bool:
    """Whether a definition or property name of the schema is not a plain name."""
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key in ("$defs", "definitions", "properties"):
                names = node.get(key)
                if isinstance(names, dict) and not all(
                    _PLAIN_NAME.fullmatch(name) for name in names
                ):
                    return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


_SELF_CHECK = f"""
import importlib, sys
sys.path.insert(0, sys.argv[1])
from acp_schema._runtime import AcpModel
for module in ("pkg", "pkg.fast", "pkg.methods"):
    importlib.import_module(module)
models = importlib.import_module("pkg.{MODELS_MODULE}")
for value in vars(models).values():
    if isinstance(value, type) and issubclass(value, AcpModel):
        if value.__module__ in ("pkg.{MODELS_MODULE}", "pkg.{NOTIFICATIONS_MODULE}"):
            value.model_rebuild(force=True)
"""


def _check_imports(files: Iterable[GeneratedFile]) -> None:
    """Import the package, every model built, in a fresh interpreter, before anything is
    written: for a schema with unusual names, what no check of the source text can show
    (a name msgspec or pydantic refuses only when the class is made)."""
    with tempfile.TemporaryDirectory(prefix="acp-schema-check-") as tmp:
        package = Path(tmp) / "pkg"
        package.mkdir()
        for file in files:
            (package / file.name).write_text(file.text, encoding="utf-8")
        command = [sys.executable, "-c", _SELF_CHECK, tmp]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(
            f"the generated package does not import ({done.returncode}):\n{done.stderr}"
        )


def write_files(files: list[GeneratedFile], out_dir: Path) -> None:
    """Write all files or none into `out_dir`, which must be new, empty or an earlier
    output of generate (`out_dir.py`)."""
    write_out_dirs([([(f.name, f.text) for f in files], out_dir)])


@dataclass(frozen=True)
class Generated:
    """What one job wrote, and the schema's warnings (read while loading it)."""

    files: list[Path]
    warnings: tuple[Problem, ...]


def _loaded(schema_path: Path, progress: bool = False) -> LoadedSchema:
    # The meta-schema check waits for datamodel-codegen to run beside it (see `render`).
    _stage(schema_path, "checking the schema", progress)
    return load_schema_file(schema_path, meta_schema=False)


def _rendered(
    schema_path: Path, command: str = BUNDLED_COMMAND, progress: bool = False
) -> tuple[list[GeneratedFile], tuple[Problem, ...]]:
    loaded = _loaded(schema_path, progress)
    return render(loaded, command, progress), loaded.warnings


def generate(
    schema_path: Path, out_dir: Path, command: str = BUNDLED_COMMAND, progress: bool = False
) -> list[Path]:
    return _generate_one(schema_path, out_dir, command, progress).files


def _generate_one(
    schema_path: Path, out_dir: Path, command: str = BUNDLED_COMMAND, progress: bool = False
) -> Generated:
    inspect_out_dir(out_dir, GENERATED_FILES, schema_path)  # refuse before rendering
    files, warnings = _rendered(schema_path, command, progress)
    _stage(schema_path, f"writing {out_dir}", progress)
    write_files(files, out_dir)
    return Generated([out_dir / f.name for f in files], warnings)


def generate_many(
    jobs: Sequence[tuple[Path, Path]], command: str = BUNDLED_COMMAND, progress: bool = False
) -> list[Generated]:
    """Several (schema, out_dir) jobs: rendered in parallel processes, then written.

    Rendering is CPU-bound Python (schema checks, libcst) around a datamodel-codegen
    subprocess, so one process per job is what makes two versions cost about one.
    Nothing is written unless every job rendered. `command` and `progress`: as for `render`.
    """
    for schema, out_dir in jobs:
        inspect_out_dir(out_dir, GENERATED_FILES, schema)  # refuse before rendering
    if len(jobs) == 1:
        return [_generate_one(*jobs[0], command, progress)]
    workers = min(len(jobs), os.cpu_count() or 1)
    schemas = [schema for schema, _ in jobs]
    with ProcessPoolExecutor(max_workers=workers, initializer=ignore_interrupts) as pool:
        rendered = list(pool.map(_rendered, schemas, [command] * len(jobs), [progress] * len(jobs)))
    if progress:
        diagnostic(f"acp-schema generate: writing {len(jobs)} packages")
    write_out_dirs(
        [
            ([(f.name, f.text) for f in files], out_dir)
            for (files, _), (_, out_dir) in zip(rendered, jobs, strict=True)
        ]
    )
    return [
        Generated([out / f.name for f in files], warnings)
        for (files, warnings), (_, out) in zip(rendered, jobs, strict=True)
    ]
