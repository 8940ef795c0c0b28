"""Code that guards against what it uses is listed as may break, with the guard as the
reason, never as breaks (attack on issue 28, finding 9); the same use unguarded breaks."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_impact import _run, _tree
from .test_impact import schemas as schemas  # the fixture: Gone is removed in NEW

GUARDED = """\
from __future__ import annotations

from typing import TYPE_CHECKING

import mybind

try:
    from mybind import Gone
except ImportError:
    Gone = None

if TYPE_CHECKING:
    from mybind import Gone as G2


def f(g: Gone | None) -> G2 | None:
    if Gone is not None:
        Gone(a="x")
    if hasattr(mybind, "Gone"):
        mybind.Gone(a="x")
    return None


class Holder:
    value: mybind.Gone
"""


def _places(out: str) -> list[tuple[int, str, str]]:
    import json

    return [
        (i["line"], i["degree"], i["message"].partition("(guarded: ")[2].rstrip(")"))
        for i in json.loads(out)["impacts"]
    ]


def test_guarded_uses_may_break_with_the_reason(
    schemas: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = _tree(tmp_path, {"app/use.py": GUARDED})
    code, out, _ = _run(schemas, tree, capsys, "--format", "json", "--fail-on", "api")
    postponed = "annotations are not evaluated (from __future__ import annotations"
    assert _places(out) == [
        (8, "may break", "inside a try whose except catches the failure"),
        (13, "may break", "only under TYPE_CHECKING"),
        (16, "may break", postponed),
        (16, "may break", postponed),
        (17, "may break", "it tests whether the name exists"),
        (18, "may break", "behind a test that the name exists"),
        (20, "may break", "behind a test that the name exists"),
        (25, "breaks", ""),  # a class-body annotation is evaluated (pydantic and the like)
    ]
    assert code == 1  # may break still fails --fail-on api: the guard is a reason, not proof


def test_the_same_uses_unguarded_break(
    schemas: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = "from mybind import Gone\n\n\ndef f(g: Gone) -> None:\n    Gone(a='x')\n"
    tree = _tree(tmp_path, {"app/use.py": source})
    _, out, _ = _run(schemas, tree, capsys, "--format", "json")
    assert {degree for _, degree, _ in _places(out)} == {"breaks"}
