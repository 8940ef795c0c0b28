"""Names `--impact` resolves as `migrate` does (`migrations/resolution`): aliases made by
assignment in a facade, in the module itself or in a function, and a name only the
module's own star import binds (attack on issue 28, findings 3 and 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_impact import _impacts, _run, _tree
from .test_impact import schemas as schemas  # the fixture: OLD -> NEW of test_impact


def test_aliases_by_assignment_and_own_star_import(
    schemas: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = _tree(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/facade.py": "import mybind as bound\n\nLocation = bound.Loc\n",
            "app/facade2.py": "from mybind import Loc\n\nPlace = Loc\n",
            "app/use.py": (
                "from app import facade2\n"
                "from app.facade import Location\n"
                "from mybind import Loc\n"
                "\n"
                "Same = Loc\n"
                "\n"
                "def f() -> None:\n"
                "    Location(path='/a', line=0)\n"
                "    Same(path='/a', line=0)\n"
                "    Local = facade2.Place\n"
                "    Local(path='/a', line=0)\n"
                "    Twice = Loc\n"
                "    Twice = int\n"
                "    Twice(path='/a', line=0)\n"  # two assignments: no class shown
            ),
            "app/star.py": "from mybind import *\n\nLoc(path='/a', line=0)\n",
            "app/shadow.py": (
                "from mybind import *\n\nclass Loc:\n    pass\n\nLoc(path='/a', line=0)\n"
            ),
        },
    )
    code, out, _ = _run(schemas, tree, capsys, "--format", "json")
    assert code == 0
    assert _impacts(out) == [
        ("star.py", 3, "breaks", "Loc.line"),
        ("use.py", 8, "breaks", "Loc.line"),
        ("use.py", 9, "breaks", "Loc.line"),
        ("use.py", 11, "breaks", "Loc.line"),
    ]


def test_comprehensions_over_an_annotated_list_show_the_class(
    schemas: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = _tree(
        tmp_path,
        {
            "app/loops.py": (
                "from mybind import Loc\n"
                "\n"
                "def f(locs: list[Loc]) -> None:\n"
                "    for loc in locs:\n"
                "        loc.line = 0\n"
                "    [loc.with_line(0) for loc in locs]\n"
                "    any(loc.with_line(0) for loc in locs)\n"
                "    {loc.path: loc.with_line(0) for loc in locs}\n"
            )
        },
    )
    _, out, _ = _run(schemas, tree, capsys, "--format", "json")
    assert [(line, degree) for _, line, degree, _ in _impacts(out)] == [
        (5, "may break"),
        (6, "may break"),
        (7, "may break"),
        (8, "may break"),
    ]


def test_subclasses_of_a_bindings_class_are_followed(
    schemas: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = _tree(
        tmp_path,
        {
            "app/sub.py": (
                "from mybind import Loc\n"
                "\n"
                "class Mine(Loc):\n"
                "    pass\n"
                "\n"
                "class Deeper(Mine):\n"
                "    line: int = 0\n"  # declared again: the subclass's own field
                "\n"
                "Mine(path='/a', line=0)\n"
                "Mine(path='/a', line=0).with_line(0)\n"
                "Deeper(path='/a', line=0)\n"
            )
        },
    )
    _, out, _ = _run(schemas, tree, capsys, "--format", "json")
    assert [(line, degree) for _, line, degree, _ in _impacts(out)] == [
        (9, "breaks"),
        (10, "breaks"),
        (10, "may break"),
    ]


def test_a_function_annotated_to_return_the_class_shows_it(
    schemas: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = _tree(
        tmp_path,
        {
            "app/make.py": (
                "from mybind import Loc\n"
                "\n"
                "def make() -> Loc:\n"
                "    return Loc(path='/a')\n"
                "\n"
                "async def later() -> Loc:\n"
                "    return Loc(path='/a')\n"
                "\n"
                "make().with_line(0)\n"
                "later().with_line(0)\n"  # a coroutine, not a Loc: not judged as one
            )
        },
    )
    _, out, _ = _run(schemas, tree, capsys, "--format", "json")
    assert [(line, degree) for _, line, degree, _ in _impacts(out)] == [(9, "may break")]


def test_tests_around_a_use_show_the_class_as_for_migrate(
    schemas: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One walk of enclosing tests (resolution/enclosing_tests.py) for migrate and the
    # report: a comprehension's `if` shows the class; a body that stores to the name again
    # shows nothing.
    tree = _tree(
        tmp_path,
        {
            "app/narrow.py": (
                "from mybind import Loc\n"
                "\n"
                "def f(x: object, xs: list[object], make: object) -> None:\n"
                "    if isinstance(x, Loc):\n"
                "        x.line = 0\n"
                "    if isinstance(x, Loc):\n"
                "        x = make\n"
                "        x.line = 0\n"
                "    [y.with_line(0) for y in xs if isinstance(y, Loc)]\n"
                "    match x:\n"
                "        case Loc() as hit:\n"
                "            hit.line = 0\n"
            )
        },
    )
    _, out, _ = _run(schemas, tree, capsys, "--format", "json")
    assert [(line, degree) for _, line, degree, _ in _impacts(out)] == [
        (5, "may break"),
        (9, "may break"),
        (12, "may break"),
    ]
