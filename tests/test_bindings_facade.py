"""The package `acp_schema.vN` is a facade: its models (`_models.py`) and pydantic are
imported on first use, so the fast path and the method-free imports stay light."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

import acp_schema.v1
import acp_schema.v2
from acp_schema.codegen.bundled import default_output
from acp_schema.v1 import _models as v1_models
from acp_schema.v2 import _models as v2_models

FACADES = {"v1": (acp_schema.v1, v1_models), "v2": (acp_schema.v2, v2_models)}


def _loaded_after(statement: str) -> list[str]:
    """Which of pydantic and the models modules a fresh interpreter holds after `statement`."""
    code = (
        f"import sys\n{statement}\n"
        "watched = ['pydantic', 'acp_schema.v1._notifications', 'acp_schema.v1._models',"
        " 'acp_schema.v2._notifications', 'acp_schema.v2._models']\n"
        "print(' '.join(name for name in watched if name in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.split()


@pytest.mark.parametrize(
    "statement",
    [
        "from acp_schema.v2 import fast",
        "import acp_schema.v2",
        "import acp_schema.v1.fast, acp_schema.v2.fast",
        # a decode the Struct takes never needs the model
        "from acp_schema.v2 import fast\n"
        "fast.UpdateSessionNotification.decode_json("
        'b\'{"sessionId": "s", "update": {"sessionUpdate": "session_message", '
        '"messageId": "m"}}\')',
    ],
    ids=["fast", "package", "both-fast", "fast-decode"],
)
def test_the_package_and_its_fast_module_import_no_models(statement: str) -> None:
    assert _loaded_after(statement) == []


def test_a_name_the_notifications_carry_imports_their_part_alone() -> None:
    assert _loaded_after("from acp_schema.v2 import UpdateSessionNotification") == [
        "pydantic",
        "acp_schema.v2._notifications",
    ]


def test_any_other_name_imports_all_the_models() -> None:
    assert _loaded_after("from acp_schema.v1 import PromptRequest") == [
        "pydantic",
        "acp_schema.v1._notifications",
        "acp_schema.v1._models",
    ]
    # and a notification's name after it is the same object
    assert _loaded_after(
        "from acp_schema.v2 import PromptRequest\nfrom acp_schema.v2 import SessionUpdate\n"
        "import acp_schema.v2._models as m\nassert SessionUpdate is m.SessionUpdate"
    ) == ["pydantic", "acp_schema.v2._notifications", "acp_schema.v2._models"]


def _defined_names(version: str, module: str = "_models") -> list[str]:
    """The public classes and aliases a models module defines at top level."""
    tree = ast.parse((default_output(version) / f"{module}.py").read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return sorted(name for name in names if not name.startswith("_"))


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_the_notifications_part_holds_what_they_need_and_nothing_else(version: str) -> None:
    """The part is the closure of the notifications' params: each of its classes is
    needed by one (and the rest module defines none of them)."""
    package = FACADES[version][0]
    carried = _defined_names(version, "_notifications")
    assert "SessionUpdate" in carried and "ContentBlock" in carried
    assert "PromptRequest" not in carried and "InitializeRequest" not in carried
    assert not set(carried) & set(_defined_names(version))
    for name in carried:
        assert getattr(package, name).__module__ == f"acp_schema.{version}._notifications"


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_every_name_the_models_define_is_the_same_object_in_the_package(version: str) -> None:
    package, models = FACADES[version]
    defined = sorted({*_defined_names(version), *_defined_names(version, "_notifications")})
    assert len(defined) > 100
    assert package.__all__ == defined
    assert all(getattr(package, name) is getattr(models, name) for name in defined)
    assert set(defined) <= set(dir(package))


def test_from_import_gives_the_model_class() -> None:
    from acp_schema.v2 import UpdateSessionNotification

    assert UpdateSessionNotification is v2_models.UpdateSessionNotification
    assert UpdateSessionNotification.__module__ == "acp_schema.v2._notifications"


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError) as caught:
        acp_schema.v2.Nope  # type: ignore[attr-defined]  # noqa: B018
    assert str(caught.value) == "module 'acp_schema.v2' has no attribute 'Nope'"
    with pytest.raises(ImportError, match="cannot import name 'Nope'"):
        from acp_schema.v2 import Nope  # type: ignore[attr-defined]  # noqa: F401
    # names the models module imports (pydantic's Field, ...) are not the package's
    assert not hasattr(acp_schema.v2, "Field")


def test_the_fast_paths_fallback_returns_the_model() -> None:
    from acp_schema.v2 import fast

    # an unknown key: the Struct refuses, the model keeps it
    data = (
        b'{"sessionId": "s", "update": {"sessionUpdate": "session_message", "messageId": "m"},'
        b' "extra": 1}'
    )
    decoded = fast.UpdateSessionNotification.decode_json(data)
    assert type(decoded) is v2_models.UpdateSessionNotification
    assert fast.UpdateSessionNotification.model_type() is v2_models.UpdateSessionNotification


def test_the_fallback_loads_the_models_in_a_fresh_interpreter() -> None:
    statement = (
        "from acp_schema.v2 import fast\n"
        "decoded = fast.UpdateSessionNotification.decode_json("
        'b\'{"sessionId": "s", "update": {"sessionUpdate": "session_message", '
        '"messageId": "m"}, "extra": 1}\')\n'
        "assert type(decoded).__module__ == 'acp_schema.v2._notifications', type(decoded)"
    )
    assert _loaded_after(statement) == ["pydantic", "acp_schema.v2._notifications"]


def test_the_facade_names_only_checked_public_identifiers() -> None:
    from acp_schema.codegen.generate.pipeline import _facade_module

    text = _facade_module(["Zeta", "Alpha", "_private"], ["Zeta"], "# header")
    namespace: dict[str, object] = {"__name__": "scratch"}
    exec(compile(text, "__init__.py", "exec"), namespace)
    assert namespace["__all__"] == ["Alpha", "Zeta"]
    assert namespace["_NOTIFICATIONS"] == frozenset({"Zeta"})
    with pytest.raises(RuntimeError, match="is not a Python identifier"):
        _facade_module(["Fine", "not-a-name"], [], "# header")
    with pytest.raises(RuntimeError, match="is not a Python identifier"):
        _facade_module(["class"], [], "# header")
    with pytest.raises(RuntimeError, match="is not a Python identifier"):
        _facade_module(["Fine"], ["not-a-name"], "# header")
