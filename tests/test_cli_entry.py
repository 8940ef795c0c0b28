"""The console script explains a missing extra instead of failing with a traceback."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("missing", "argv", "prefix", "extra"),
    [
        ("jsonschema", ["schema", "check"], "acp-schema schema check", "codegen"),
        # libcst comes with both extras; generate needs codegen's, not migrate's
        ("libcst", ["generate", "v1"], "acp-schema generate", "codegen"),
        ("libcst", ["migrate", "."], "acp-schema migrate", "migrate"),
    ],
)
def test_missing_tools_extra_is_named(
    missing: str, argv: list[str], prefix: str, extra: str
) -> None:
    code = (
        f"import sys; sys.modules[{missing!r}] = None\n"  # as if the extra were not installed
        "from acp_schema.cli import main\n"
        f"raise SystemExit(main({argv!r}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert done.stderr.startswith(f"{prefix}: {missing} is not installed; ")
    assert f"needs the [{extra}] extra" in done.stderr
    assert f"pip install '.[{extra}]'" in done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_the_script_runs_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "acp_schema", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.startswith("acp-schema ")


def test_each_group_adds_the_commands_it_is_listed_with() -> None:
    import argparse
    import importlib

    from acp_schema.cli import COMMAND_GROUPS, GROUP_COMMANDS

    assert sorted(GROUP_COMMANDS) == sorted(module for module, _ in COMMAND_GROUPS)
    for module, registrar in COMMAND_GROUPS:
        commands = argparse.ArgumentParser().add_subparsers()
        getattr(importlib.import_module(module), registrar)(commands)
        assert tuple(commands.choices) == GROUP_COMMANDS[module]


def test_a_command_line_builds_the_parser_of_its_command_alone() -> None:
    from acp_schema.cli import build_parser

    def commands(argv: list[str] | None) -> list[str]:
        parser = build_parser(argv)
        (action,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return list(action.choices)

    everything = ["schema", "generate", "check", "diff", "transcript", "migrate"]
    assert commands(["transcript", "show", "log.jsonl"]) == ["transcript"]
    assert commands(["diff", "v1", "v2"]) == ["check", "diff"]
    assert commands(None) == everything
    assert commands(["--help"]) == everything
    assert commands(["nope"]) == everything
    assert commands([]) == everything
