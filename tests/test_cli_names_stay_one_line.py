"""A file name is data, never layout: whatever it holds (line feeds, carriage returns,
tabs, `::` that would start a GitHub workflow command, bytes that are not UTF-8), every
command writes it inside its one line, escaped (README, "Errors and exit codes"), and
every JSON document stays valid JSON that gives the name back.

The names are drawn; each command runs in this process, on the name as its schema, log,
output directory or migration path.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from acp_schema.cli import main
from acp_schema.codegen.bundled import bundled_schema

from .budget import examples

INJECTED = "::warning file=evil::"
# Pieces a hostile name is made of: each line break is followed by what would start a
# workflow command; "\udcff" is the byte 0xff as Python names it.
NAMES = st.lists(
    st.sampled_from(
        ["a", "b.json", "\n" + INJECTED, "\r" + INJECTED, "\t", "%0A", "\udcff", " ", ","]
    ),
    min_size=1,
    max_size=6,
).map(lambda parts: "n" + "".join(parts))

Command = Callable[[Path, str], list[str]]


def _schema_copy(root: Path, name: str) -> str:
    target = root / name
    shutil.copyfile(bundled_schema("v2"), target)
    return str(target)


def _bad_log(root: Path, name: str) -> str:
    target = root / name
    target.write_text("not json\n")
    return str(target)


COMMANDS: dict[str, Command] = {
    "diff github": lambda root, name: [
        "diff", "v2", _schema_copy(root, name), "--format", "github",
    ],
    "diff text": lambda root, name: ["diff", "v2", _schema_copy(root, name)],
    "diff json": lambda root, name: ["diff", "v2", _schema_copy(root, name), "--format", "json"],
    "diff missing": lambda root, name: ["diff", "v2", str(root / name)],
    "schema check": lambda root, name: ["schema", "check", _schema_copy(root, name)],
    "schema check json": lambda root, name: [
        "schema", "check", _schema_copy(root, name), "--format", "json",
    ],
    "check missing": lambda root, name: [
        "check", "--schema", str(root / name), "--out", str(root / (name + "out")),
    ],
    "check json": lambda root, name: [
        "check", "--schema", _schema_copy(root, name), "--out", str(root / (name + "out")),
        "--format", "json",
    ],
    "transcript bad line": lambda root, name: ["transcript", "show", _bad_log(root, name)],
    "transcript missing": lambda root, name: ["transcript", "show", str(root / name)],
    "migrate missing": lambda root, name: ["migrate", "--check", str(root / name)],
}  # fmt: skip


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_name_stays_inside_its_line(
    command: str, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    @settings(
        max_examples=examples(4, 20),
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(name=NAMES)
    @example(name="n\udcff.json\n" + INJECTED)  # every kind of trouble at once
    def prop(name: str) -> None:
        root = tmp_path_factory.mktemp("names")
        argv = COMMANDS[command](root, name)
        capsys.readouterr()
        main(argv)
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err
        lines = (out + err).splitlines()
        # The name's own line breaks never reach the output: no line starts where the
        # name's `::` would.
        assert not any(line.lstrip().startswith(INJECTED) for line in lines), out + err
        if "json" in command and out.strip():
            assert out.isascii()
            document = json.loads(out)  # valid JSON, that gives the name back
            assert any(s.endswith(name) for s in _strings(document)), out

    prop()


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []
