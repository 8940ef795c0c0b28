"""`acp-schema migrate --check` on a large repository, against libcst baselines.

A deterministic tree (seeded) of FILES ordinary Python modules (`ACP_BENCH_FILES`
changes it), about 100 lines each, is written to a temporary directory, as a real agent
repository looks: one file in a hundred uses the old chunk API in the shapes the
migration handles (loops, helpers, generators, raw payloads, reads); one in ten is the
application's own code with participant-ID fields and no chunk (events, stores); and a
copy of the generated bindings (`generated/v1`, `generated/v2`: two 10k-line
`_models.py`, `fast.py`, ...) sits in the tree as a vendored package. Measured side by
side in one run:

- whole tree: `acp-schema migrate --check` (discovery, old-bindings detection, the
  prefilter, parse and migrate the files that can reach a chunk, account every other
  file that names a removed name, from `ast` where that proves each occurrence), with
  `--jobs 1` and `--jobs 2`, against a bare
  `libcst.parse_module` loop over the same files, `ast.parse` over them, and libcst
  parse + print. Target: migrate --check <= 0.2x the bare libcst parse.
- affected files only: the migration of those files against a no-op codemod resolving the
  same metadata providers through libcst's MetadataWrapper (parse, metadata, print).
  Target: the migration within 1.5x of it.

Both affected-file sides run REPEATS times; the best time counts.

- one big module (BIG_BYTES, 1.7 MB by default; `ACP_BENCH_BIG_BYTES` changes it, 0
  skips it) made of many realistic downstream sections (streaming agents, builders, raw
  payload helpers, generators, readers) concatenated: the migration of that file against
  libcst parsing it and resolving the migration's metadata providers. Each side runs once
  in a fresh process, which also reports its peak memory. Target: the migration within 2x.
"""

# The sample of old code keeps the line lengths such code has.
# ruff: noqa: E501

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import libcst as cst
from libcst.codemod import Codemod, CodemodContext
from libcst.metadata import MetadataWrapper

from acp_schema.cli import main as cli_main
from acp_schema.migrations.chunk_identity.rule_ids import ALL_RULES
from acp_schema.migrations.chunk_identity.run import Options, may_be_affected, migrate_bytes
from acp_schema.migrations.resolution.facts import METADATA

FILES = int(os.environ.get("ACP_BENCH_FILES", "2000"))
AFFECTED_EVERY = 100
APP_EVERY = 10  # the application's own classes with participant-ID fields
SEED = 20_251_130
REPEATS = 3
WHOLE_TARGET = 0.2  # migrate --check / bare libcst.parse_module loop
AFFECTED_TARGET = 1.5
BIG_BYTES = int(os.environ.get("ACP_BENCH_BIG_BYTES", "1700000"))
BIG_TARGET = 2.0

GENERATED = Path(__file__).resolve().parents[2] / "generated"

WORDS = ("order", "item", "price", "user", "cache", "queue", "event", "token", "batch", "state")


def _name(rng: random.Random) -> str:
    return f"{rng.choice(WORDS)}_{rng.choice(WORDS)}"


def ordinary_block(rng: random.Random, n: int) -> str:
    """About 24 lines of everyday code: a class with methods and a function."""
    a, b, c = _name(rng), _name(rng), _name(rng)
    return f'''

class Service{n}:
    """Keeps {a} records and answers questions about them."""

    def __init__(self, limit: int = {rng.randint(2, 99)}) -> None:
        self.limit = limit
        self.{a}: dict[str, list[int]] = {{}}

    def add(self, key: str, value: int) -> None:
        bucket = self.{a}.setdefault(key, [])
        if len(bucket) >= self.limit:
            bucket.pop(0)
        bucket.append(value * {rng.randint(2, 9)})

    def total(self, key: str) -> int:
        return sum(v for v in self.{a}.get(key, []) if v % {rng.randint(2, 5)})


def {b}_{n}(values: list[int], {c}: float = {rng.random():.3f}) -> list[float]:
    result = []
    for index, value in enumerate(values):
        if index % 2:
            result.append(value * {c})
        else:
            result.append(value - {c})
    return result
'''


AFFECTED = """

from collections.abc import Iterator
from acp_schema.v2 import SessionMessageChunk, TextContent


def _chunk_{n}(message_id: str, text: str, sender: str, recipient: str) -> SessionMessageChunk:
    return SessionMessageChunk(
        message_id=message_id,
        content=TextContent(text=text),
        sender_session_id=sender,
        recipient_session_id=recipient,
    )


async def stream_{n}(conn, session_id, message_id, sender, recipient, parts):
    for part in parts:
        await conn.session_update(session_id=session_id, update=_chunk_{n}(message_id, part, sender, recipient))


def chunks_{n}(message_id: str, sender: str, parts: list[str]) -> Iterator[SessionMessageChunk]:
    for part in parts:
        yield SessionMessageChunk(message_id=message_id, content=TextContent(text=part)).with_sender_session_id(sender)


def payload_{n}(out, session_id, message_id, sender, text):
    chunk = {{"sessionUpdate": "session_message_chunk", "messageId": message_id, "content": {{"type": "text", "text": text}}, "senderSessionId": sender}}
    out.write({{"jsonrpc": "2.0", "method": "session/update", "params": {{"sessionId": session_id, "update": chunk}}}})


def sender_{n}(update):
    if isinstance(update, SessionMessageChunk):
        return update.sender_session_id
    return None
"""


APP_OWN = """

from dataclasses import dataclass


@dataclass
class MessageEvent{n}:
    message_id: str
    sender_session_id: str
    recipient_session_id: str | None = None


def route_{n}(events: list[MessageEvent{n}], me: str) -> list[str]:
    return [e.message_id for e in events if e.recipient_session_id == me or e.sender_session_id == me]
"""


def module_text(rng: random.Random, index: int) -> str:
    parts = [f'"""Module {index}: generated for the migration benchmark."""\n\nimport math\n']
    if index % AFFECTED_EVERY == AFFECTED_EVERY // 2:
        parts.append(AFFECTED.format(n=index))
        blocks = 2
    elif index % APP_EVERY == 3:
        parts.append(APP_OWN.format(n=index))
        blocks = 3
    else:
        blocks = 4
    parts.extend(ordinary_block(rng, index * 10 + k) for k in range(blocks))
    return "".join(parts)


def write_tree(root: Path) -> tuple[list[Path], int]:
    rng = random.Random(SEED)
    paths = []
    lines = 0
    for index in range(FILES):
        package = root / f"pkg{index // 100:02d}"
        package.mkdir(exist_ok=True)
        path = package / f"mod{index:04d}.py"
        text = module_text(rng, index)
        path.write_text(text, encoding="utf-8")
        lines += text.count("\n")
        paths.append(path)
    # The generated bindings, vendored as a package of the tree.
    for version in ("v1", "v2"):
        target = root / "vendor" / "acp_bindings" / version
        target.mkdir(parents=True)
        for source in sorted((GENERATED / version).glob("*.py")):
            text = source.read_text(encoding="utf-8")
            (target / source.name).write_text(text, encoding="utf-8")
            lines += text.count("\n")
            paths.append(target / source.name)
    return paths, lines


class NoOp(Codemod):
    """Resolves the migration's metadata providers and changes nothing."""

    METADATA_DEPENDENCIES = METADATA

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        return tree


def parse_only(paths: list[Path]) -> None:
    for path in paths:
        cst.parse_module(path.read_bytes())


def ast_parse(paths: list[Path]) -> None:
    for path in paths:
        ast.parse(path.read_bytes())


def parse_and_print(paths: list[Path]) -> None:
    for path in paths:
        cst.parse_module(path.read_bytes()).bytes  # noqa: B018 - printing is the work


def noop_with_metadata(paths: list[Path]) -> None:
    for path in paths:
        module = cst.parse_module(path.read_bytes())
        NoOp(CodemodContext(filename=str(path))).transform_module(module).bytes  # noqa: B018


def migrate_files(paths: list[Path]) -> None:
    options = Options(rules=ALL_RULES)
    for path in paths:
        result = migrate_bytes(path, path.read_bytes(), options)
        assert result.status == "changed", (path, result.error)


def migrate_check(root: Path, jobs: int = 1) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        code = cli_main(["migrate", "--check", "--quiet", "--jobs", str(jobs), str(root)])
    assert code == 1, code


def timed(run: Callable[[], None], repeats: int = 1) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


# --- one big module -------------------------------------------------------------------

BIG_SECTION = """

def payload_{n}(kind: str, message_id: str, text: str, sender: str, recipient: str) -> dict[str, Any]:
    return {{
        "sessionUpdate": kind,
        "messageId": message_id,
        "content": {{"type": "text", "text": text}},
        "senderSessionId": sender,
        "recipientSessionId": recipient,
    }}


def notify_{n}(session_id: str, update: dict[str, Any]) -> dict[str, Any]:
    return {{"jsonrpc": "2.0", "method": "session/update", "params": {{"sessionId": session_id, "update": update}}}}


def send_text_{n}(transport, session_id: str, message_id: str, sender: str, recipient: str, parts: list[str]) -> None:
    for part in parts:
        update = payload_{n}("session_message_chunk", message_id, part, sender, recipient)
        transport.send_raw(notify_{n}(session_id, update))


def chunks_{n}(message_id: str, sender: str, recipient: str, parts: list[str]) -> Iterator[SessionMessageChunk]:
    for part in parts:
        yield SessionMessageChunk(
            message_id=message_id,
            content=TextContent(text=part),
            sender_session_id=sender,
            recipient_session_id=recipient,
        )


async def forward_{n}(transport, session_id: str, message_id: str, sender: str, recipient: str, parts: list[str]) -> None:
    for update in chunks_{n}(message_id, sender, recipient, parts):
        await transport.session_update(session_id, update)


def describe_{n}(update: SessionUpdate) -> str:
    match update:
        case SessionMessageChunk(message_id=message_id, sender_session_id=_):
            return f"chunk of {{message_id}}"
        case _:
            return "something else"


def sender_of_{n}(update: Any) -> str | None:
    if getattr(update, "session_update", None) != "session_message_chunk":
        return None
    sender = getattr(update, "sender_session_id", None)
    return sender if isinstance(sender, str) else None


class Agent{n}:
    def __init__(self, conn, me: str) -> None:
        self.conn = conn
        self.me = me
        self.sent = 0

    async def reply(self, session_id: str, message_id: str, peer: str, parts: list[str]) -> None:
        for part in parts:
            await self.conn.session_update(
                session_id=session_id,
                update=Chunk(
                    message_id=message_id,
                    content=TextContent(text=part),
                    senderSessionId=self.me,
                    recipientSessionId=peer,
                ),
            )
            self.sent += 1

    async def announce(self, session_id: str, message_id: str, peer: str, text: str, log: list[str]) -> None:
        chunk = (
            schema.SessionMessageChunk(message_id=message_id, content=schema.TextContent(text=text))
            .with_sender_session_id(self.me)
            .with_recipient_session_id(peer)
        )
        log.append(f"{{chunk.sender_session_id}} -> {{chunk.recipient_session_id}}: {{text}}")
        await self.conn.session_update(session_id, chunk)
"""
BIG_HEADER = """from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from acp_schema import v2 as schema
from acp_schema.v2 import SessionMessageChunk as Chunk
from acp_schema.v2 import SessionMessageChunk, SessionUpdate, TextContent
"""


def big_module(size: int) -> str:
    """Realistic sections with chunk calls, concatenated up to `size` characters."""
    rng = random.Random(SEED)
    parts = [BIG_HEADER]
    total, n = 0, 0
    while total < size:
        text = BIG_SECTION.format(n=n) + ordinary_block(rng, n)
        parts.append(text)
        total += len(text)
        n += 1
    return "".join(parts)


def big_side(side: str, path: Path) -> dict[str, float]:
    """One side of the big-file measurement, in this (fresh) process."""
    data = path.read_bytes()
    start = time.perf_counter()
    if side == "baseline":
        module = cst.parse_module(data)
        MetadataWrapper(module, unsafe_skip_copy=True).resolve_many(METADATA)
    else:
        result = migrate_bytes(path, data, Options(rules=ALL_RULES))
        assert result.status == "changed", result.error
    seconds = time.perf_counter() - start
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return {"seconds": seconds, "peak_mib": peak_kib / 1024}


def run_big_side(side: str, path: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.bench.migrate", "--big-side", side, str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    measured: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return measured


def big_file() -> None:
    with tempfile.TemporaryDirectory(prefix="acp-migrate-big-") as directory:
        path = Path(directory) / "big_module.py"
        text = big_module(BIG_BYTES)
        path.write_text(text, encoding="utf-8")
        print(f"big module: {len(text) / 1e6:.2f} MB, {text.count(chr(10))} lines")
        baseline = run_big_side("baseline", path)
        migrated = run_big_side("migrate", path)
    ratio = migrated["seconds"] / baseline["seconds"]
    print(f"{'big module':<16} {'run':<30} {'seconds':>8} {'peak MiB':>10}")
    for label, measured in (
        ("libcst parse + same metadata", baseline),
        ("migrate", migrated),
    ):
        print(
            f"{'big module':<16} {label:<30} {measured['seconds']:>8.2f} {measured['peak_mib']:>10.0f}"
        )
    print(
        f"big module: migrate takes {ratio:.2f}x libcst parse + metadata "
        f"(target <= {BIG_TARGET:.0f}x: {'met' if ratio <= BIG_TARGET else 'MISSED'})"
    )


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="acp-migrate-bench-") as directory:
        root = Path(directory)
        paths, lines = write_tree(root)
        affected = [p for p in paths if may_be_affected(p.read_bytes())]
        affected_lines = sum(p.read_bytes().count(b"\n") for p in affected)
        naming = sum(b"sender_session_id" in p.read_bytes() for p in paths)
        print(
            f"tree: {len(paths)} files, {lines} lines; {naming} name sender_session_id, "
            f"{len(affected)} name a removed name or a chunk (read by the migration: with "
            "libcst when a rule may act on them, else with ast when that proves them)"
        )

        # Warm up imports and libcst's parser once, outside the measurements.
        migrate_files(affected[:1])
        noop_with_metadata(affected[:1])

        whole_migrate = timed(lambda: migrate_check(root), REPEATS)
        whole_jobs = timed(lambda: migrate_check(root, jobs=2), REPEATS)
        whole_parse = timed(lambda: parse_only(paths))
        whole_ast = timed(lambda: ast_parse(paths))
        whole_print = timed(lambda: parse_and_print(paths))
        part_migrate = timed(lambda: migrate_files(affected), REPEATS)
        part_noop = timed(lambda: noop_with_metadata(affected), REPEATS)

    rows = [
        ("whole tree", "migrate --check", whole_migrate, lines),
        ("whole tree", "migrate --check --jobs 2", whole_jobs, lines),
        ("whole tree", "libcst.parse_module loop", whole_parse, lines),
        ("whole tree", "ast.parse loop", whole_ast, lines),
        ("whole tree", "libcst parse + print", whole_print, lines),
        ("affected files", "migrate", part_migrate, affected_lines),
        ("affected files", "no-op codemod, same metadata", part_noop, affected_lines),
    ]
    print(f"{'set':<16} {'run':<30} {'seconds':>8} {'lines/s':>10}")
    for scope, label, seconds, count in rows:
        print(f"{scope:<16} {label:<30} {seconds:>8.2f} {count / seconds:>10.0f}")
    ratio = whole_migrate / whole_parse
    overhead = part_migrate / part_noop
    print(
        f"whole tree: migrate --check takes {ratio:.3f}x a bare libcst parse of the same files, "
        f"{whole_migrate / whole_ast:.2f}x ast.parse; --jobs 2 {whole_jobs / whole_migrate:.2f}x "
        f"--jobs 1 (target <= {WHOLE_TARGET}x libcst: {'met' if ratio <= WHOLE_TARGET else 'MISSED'})"
    )
    print(
        f"affected files: migrate takes {overhead:.2f}x the no-op codemod "
        f"(target <= {AFFECTED_TARGET}x: {'met' if overhead <= AFFECTED_TARGET else 'MISSED'})"
    )
    if BIG_BYTES:
        big_file()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--big-side"]:
        print(json.dumps(big_side(sys.argv[2], Path(sys.argv[3]))))
    else:
        main()
