"""The package as pip installs it: clean under `mypy --strict` (generated bindings
included), the README's typing claims true, the LICENSE in the wheel."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One mypy cache for the module's runs: the package is analysed once, and the user
    files after it reuse that work (seconds instead of a minute each)."""
    return tmp_path_factory.mktemp("mypy-cache")


def _mypy(installed_project: Path, cache: Path, cwd: Path, *targets: str) -> list[str]:
    command = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), *targets]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "MYPYPATH": str(installed_project)},
        check=False,
    )
    return done.stdout.splitlines()


def test_package_passes_mypy_strict(
    installed_project: Path, mypy_cache: Path, tmp_path: Path
) -> None:
    lines = _mypy(installed_project, mypy_cache, tmp_path, "-p", "acp_schema")
    assert lines[-1:] and lines[-1].startswith("Success: no issues found"), "\n".join(lines)


def test_mypy_sees_the_models_through_the_lazy_package(
    installed_project: Path, mypy_cache: Path, tmp_path: Path
) -> None:
    # The package's names are re-exported for type checkers; its run-time `__getattr__` is
    # hidden from them, so an unknown name stays an error instead of becoming `Any`.
    user = tmp_path / "user.py"
    user.write_text(
        "from acp_schema.v2 import UpdateSessionNotification\n"
        "from acp_schema.v2 import fast\n"
        "import acp_schema.v2\n"
        "reveal_type(UpdateSessionNotification)\n"
        "reveal_type(acp_schema.v2.RequestId)\n"
        "reveal_type(fast.UpdateSessionNotification.model_type())\n"
        "acp_schema.v2.NoSuchModel\n",
        encoding="utf-8",
    )
    lines = _mypy(installed_project, mypy_cache, tmp_path, str(user))
    model = "acp_schema.v2._notifications.UpdateSessionNotification"
    assert lines[0].startswith('user.py:4: note: Revealed type is "def (')
    assert lines[0].endswith(f'-> {model}"')
    assert lines[1:] == [
        'user.py:5: note: Revealed type is "typing_extensions.TypeAliasType"',
        f'user.py:6: note: Revealed type is "type[{model}]"',
        'user.py:7: error: Module has no attribute "NoSuchModel"  [attr-defined]',
        "Found 1 error in 1 file (checked 1 source file)",
    ]


def test_what_the_readme_says_about_construction_and_presence(
    installed_project: Path, mypy_cache: Path, tmp_path: Path
) -> None:
    # README "Using the bindings": snake_case names type-check; the wire names work at run
    # time only; `acp_schema.MISSING` / `UNSET` narrow an optional field.
    user = tmp_path / "user.py"
    user.write_text(
        "from acp_schema import MISSING, UNSET, v2\n"
        "from acp_schema.v2 import fast\n"
        'model = v2.SessionMessage(message_id="m", sender_session_id="a")\n'
        'wire = v2.SessionMessage(messageId="m")\n'
        "if model.sender_session_id is not MISSING:\n"
        "    reveal_type(model.sender_session_id)\n"
        'struct = fast.SessionMessage(message_id="m")\n'
        "if struct.sender_session_id is not UNSET:\n"
        "    reveal_type(struct.sender_session_id)\n"
        "from acp_schema.v2.methods import METHODS\n"
        "reveal_type(METHODS.decode(b'{}').params)\n",
        encoding="utf-8",
    )
    lines = _mypy(installed_project, mypy_cache, tmp_path, str(user))
    assert lines == [
        'user.py:4: error: Unexpected keyword argument "messageId" for "SessionMessage"; '
        'did you mean "message_id"?  [call-arg]',
        'user.py:4: note: "SessionMessage" defined in "acp_schema.v2._notifications"',
        'user.py:6: note: Revealed type is "str | None"',
        'user.py:9: note: Revealed type is "str | None"',
        'user.py:11: note: Revealed type is "acp_schema._runtime.AcpModel | '
        'acp_schema._fast.FastStruct[Any] | None"',
        "Found 1 error in 1 file (checked 1 source file)",
    ]


def test_store_content_and_method_params_are_typed_by_version_and_name(
    installed_project: Path, mypy_cache: Path, tmp_path: Path
) -> None:
    # A store's blocks are those of its version (model or Struct); `params_of` gives the
    # params type of the method named, with the Struct the fast path may give.
    user = tmp_path / "user.py"
    user.write_text(
        "from acp_schema.transcripts import TranscriptStore, Version\n"
        "from acp_schema import Decoded\n"
        "from acp_schema.v2.methods import METHODS\n"
        'v1_store = TranscriptStore("v1")\n'
        "entry = v1_store.entry('s', 'm')\n"
        "assert entry is not None\n"
        "reveal_type(entry.content[0])\n"
        "reveal_type(entry.chunks[0].content)\n"
        "def any_version(version: Version) -> None:\n"
        "    for each in TranscriptStore(version):\n"
        "        reveal_type(each.content)\n"
        "def params(decoded: Decoded) -> None:\n"
        '    reveal_type(METHODS.params_of(decoded, "session/prompt"))\n'
        '    reveal_type(METHODS.params_of(decoded, "proxy/successor"))\n',
        encoding="utf-8",
    )
    # Which of the two generated model modules holds a class is the generator's business
    # (`model_parts`): the names are compared as if both were `_models`.
    lines = [
        line.replace("._notifications.", "._models.")
        for line in _mypy(installed_project, mypy_cache, tmp_path, str(user))
    ]
    v1_blocks = [
        f"acp_schema.v1.{where}.{name}"
        for where in ("_models", "fast")
        for name in ("TextContent", "ImageContent", "AudioContent", "ResourceLink")
    ]
    assert lines[0].startswith('user.py:7: note: Revealed type is "acp_schema.v1._models.TextC')
    assert all(name in lines[0] for name in v1_blocks), lines[0]
    assert "acp_schema.v2" not in lines[0]
    assert lines[1].replace(":8:", ":7:") == lines[0]
    assert "acp_schema.v1._models.TextContent" in lines[2]
    assert "acp_schema.v2._models.TextContent" in lines[2]
    assert lines[3:] == [
        'user.py:13: note: Revealed type is "acp_schema.v2._models.PromptRequest | '
        'acp_schema.v2.fast.PromptRequest"',
        'user.py:14: note: Revealed type is "acp_schema.v2._models.ProxySuccessorNotification | '
        "acp_schema.v2.fast.ProxySuccessorNotification | "
        "acp_schema.v2._models.ProxySuccessorRequest | "
        'acp_schema.v2.fast.ProxySuccessorRequest"',
        "Success: no issues found in 1 source file",
    ]


def test_the_license_ships_in_the_wheel(installed_project: Path) -> None:
    # `installed_project` is pip's install of the wheel built from this checkout (or, offline,
    # a copy of the package folders, which holds no metadata to check).
    metadata = sorted(installed_project.glob("acp_schema-*.dist-info"))
    if not metadata:
        pytest.skip("the project could not be built offline; the package was copied instead")
    license_file = metadata[0] / "licenses" / "LICENSE"
    assert license_file.read_text(encoding="utf-8").split()[:3] == ["Apache", "License", "Version"]
    assert "License-File: LICENSE" in (metadata[0] / "METADATA").read_text(encoding="utf-8")
