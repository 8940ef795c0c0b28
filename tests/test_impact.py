"""`acp-schema diff OLD NEW --impact PATH`: what is listed, how, and the exit codes, on
small schemas and trees made here (no network, nothing shared)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_schema.cli import main

from .budget import examples

EXAMPLES = examples(25, 200)

OLD: dict[str, Any] = {
    "$defs": {
        "Loc": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "line": {"type": "integer", "minimum": 0}},
            "required": ["path"],
        },
        "Gone": {"type": "object", "properties": {"a": {"type": "string"}}},
        "Req": {"type": "object", "properties": {"x": {"type": "string"}}},
        "Keep": {"type": "object", "properties": {"line": {"type": "integer"}}},
        "Status": {"type": "string", "enum": ["pending", "done"]},
    }
}


def _new() -> dict[str, Any]:
    new = json.loads(json.dumps(OLD))
    new["$defs"]["Loc"]["properties"]["line"]["minimum"] = 1
    del new["$defs"]["Gone"]
    new["$defs"]["Req"]["required"] = ["x"]
    new["$defs"]["Keep"]["properties"]["extra"] = {"type": "string"}
    new["$defs"]["Status"]["enum"].append("paused")
    return new


@pytest.fixture
def schemas(tmp_path: Path) -> tuple[Path, Path]:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(OLD), encoding="utf-8")
    new.write_text(json.dumps(_new()), encoding="utf-8")
    return old, new


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "tree" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "tree"


def _run(
    schemas: tuple[Path, Path], tree: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, str, str]:
    args = ["diff", str(schemas[0]), str(schemas[1]), "--impact", str(tree)]
    code = main([*args, "--bindings", "mybind", *extra])
    out, err = capsys.readouterr()
    return code, out, err


def _impacts(out: str) -> list[tuple[str, int, str, str]]:
    report = json.loads(out)
    return [(Path(i["path"]).name, i["line"], i["degree"], i["where"]) for i in report["impacts"]]


USE = """\
from mybind import Gone, Keep, Loc, Req


def f(n: int, loc: Loc) -> None:
    Loc(path="/a", line=0)
    Loc(path="/a", line=5)
    Loc(path="/a", line=n)
    Req()
    Req(x="1")
    Keep(line=0)
    Gone(a="x")
    loc.with_line(0)
"""


def test_degrees_and_look_alikes(
    schemas: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = _tree(tmp_path, {"app/use.py": USE})
    code, out, _ = _run(schemas, tree, capsys, "--format", "json")
    assert code == 0
    assert _impacts(out) == [
        ("use.py", 1, "breaks", "Gone"),
        ("use.py", 5, "breaks", "Loc.line"),
        ("use.py", 7, "may break", "Loc.line"),
        ("use.py", 8, "breaks", "Req.x"),
        ("use.py", 11, "breaks", "Gone"),
        ("use.py", 12, "may break", "Loc.line"),
    ]


def test_fail_on_counts_listed_places_not_changes(
    schemas: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    untouched = _tree(tmp_path, {"app/use.py": "from mybind import Keep\nKeep(line=1)\n"})
    assert _run(schemas, untouched, capsys, "--fail-on", "any")[0] == 0
    (untouched / "app" / "use.py").write_text(USE, encoding="utf-8")
    assert _run(schemas, untouched, capsys, "--fail-on", "api")[0] == 1
    assert _run(schemas, untouched, capsys, "--fail-on", "wire")[0] == 0


def test_facade_alias_instance_evidence_and_own_class(
    schemas: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = _tree(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "x"\n',
            "src/acme/models.py": "from mybind import Loc as Location\n",
            "src/acme/use.py": (
                "from acme.models import Location\n"
                "\n"
                "class Loc:\n"
                "    def __init__(self, line: int) -> None:\n"
                "        self.line = line\n"
                "\n"
                "def f(value: object) -> None:\n"
                "    Loc(line=0)\n"
                "    Location(path='/a', line=-1)\n"
                "    if isinstance(value, Location):\n"
                "        value.line = 0\n"
            ),
        },
    )
    code, out, _ = _run(schemas, tree, capsys, "--format", "json")
    assert code == 0
    assert _impacts(out) == [
        ("use.py", 9, "breaks", "Loc.line"),
        ("use.py", 11, "may break", "Loc.line"),
    ]


def test_enum_chain_is_a_note_and_never_fails(
    schemas: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chain = (
        "def f(s: str) -> int:\n"
        "    match s:\n"
        "        case 'pending':\n"
        "            return 1\n"
        "        case 'done':\n"
        "            return 2\n"
        "    return 0\n"
    )
    tree = _tree(tmp_path, {"a.py": chain, "b.py": "x = 'pending' if True else 'done'\n"})
    code, out, _ = _run(schemas, tree, capsys, "--fail-on", "any", "--format", "json")
    assert code == 0
    assert _impacts(out) == [("a.py", 2, "note", "Status")]


def test_formats(
    schemas: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = _tree(tmp_path, {"use.py": "from mybind import Loc\nLoc(path='/a', line=0)\n"})
    _, text, _ = _run(schemas, tree, capsys)
    assert f"{tree / 'use.py'}:2:15: Loc.line constraint-changed: breaks: line=0 is outside" in text
    assert "1 place(s) in 1 file(s): 1 break, 0 may break, 0 unknown, 0 note(s)" in text
    _, github, _ = _run(schemas, tree, capsys, "--format", "github")
    assert github.startswith(f"::error file={tree / 'use.py'},line=2,col=16,title=")
    _, markdown, _ = _run(schemas, tree, capsys, "--format", "markdown")
    assert "| place | change | degree | what breaks here | codemod |" in markdown


def test_github_format_without_impact_annotates_the_new_schema(
    schemas: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", str(schemas[0]), str(schemas[1]), "--format", "github"]) == 0
    annotations = [line for line in capsys.readouterr().out.splitlines() if line.startswith("::")]
    assert annotations
    assert all("file=" in line and "new.json," in line for line in annotations)


def test_a_broken_file_is_reported_the_others_scanned(
    schemas: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = _tree(
        tmp_path,
        {"bad.py": "from mybind import Loc\ndef (:\n", "good.py": "from mybind import Gone\n"},
    )
    code, out, err = _run(schemas, tree, capsys, "--format", "json")
    assert code == 2
    assert "bad.py: error: cannot parse" in err
    assert _impacts(out) == [("good.py", 1, "breaks", "Gone")]
    assert (tree / "bad.py").read_text(encoding="utf-8").startswith("from mybind")


def test_gitignored_and_oversized_files(
    schemas: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = _tree(
        tmp_path,
        {
            ".gitignore": "build/\n",
            "build/old.py": "from mybind import Gone\n",
            "big.py": "from mybind import Gone\n" + "#" * 5000 + "\n",
        },
    )
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    code, out, err = _run(schemas, tree, capsys, "--format", "json", "--max-file-size", "1K")
    assert code == 2
    assert "over the per-file budget" in err
    assert _impacts(out) == []


def _scan_one(tmp: Path, source: str) -> list[tuple[int, str, str]]:
    """The impacts (line, degree, where) of OLD -> NEW on one module, in-process."""
    from acp_schema.codegen.drift.impact.run import Settings, scan
    from acp_schema.codegen.drift.impact.targets import build_targets
    from acp_schema.codegen.drift.schema_diff import diff_documents

    (tmp / "use.py").write_text(source, encoding="utf-8")
    changes, _ = diff_documents(OLD, _new())
    found = scan(Settings((tmp,), bindings=("mybind",)), build_targets(changes, OLD, _new()))
    assert not found.failed, [f.error for f in found.failed]
    return [(i.line, i.degree, i.where) for i in found.impacts]


alias_names = st.from_regex(r"[A-Z][a-z]{1,8}", fullmatch=True).filter(
    lambda n: n not in {"Loc", "Gone", "Req", "Keep", "Status", "None", "True", "False"}
)


@settings(max_examples=EXAMPLES, deadline=None)
@given(
    value=st.one_of(st.integers(-5, 5), st.none(), st.just("n")),
    alias=st.one_of(st.none(), alias_names),
    split=st.booleans(),
)
def test_bound_literals_are_judged_by_their_value(
    tmp_path_factory: pytest.TempPathFactory,
    value: int | str | None,
    alias: str | None,
    split: bool,
) -> None:
    """Generated calls of `Loc`: a literal below NEW's minimum (1) breaks, a literal at or
    above it is not listed, a value the code does not show may break; under any import
    alias and whether the call spans lines. (The field has no default-on-error here.)"""
    name = alias or "Loc"
    imported = f"from mybind import Loc as {alias}" if alias else "from mybind import Loc"
    shown = "n" if value == "n" else repr(value)
    sep = "\n    " if split else " "
    source = f"{imported}\n\n\ndef f(n: int) -> None:\n    {name}(path='/a',{sep}line={shown})\n"
    found = _scan_one(tmp_path_factory.mktemp("bound"), source)
    line = 6 if split else 5
    if value == "n":
        assert found == [(line, "may break", "Loc.line")]
    elif value is None or value >= 1:
        assert found == []  # None is allowed: nullability did not change; inside the bound
    else:
        assert found == [(line, "breaks", "Loc.line")]


@settings(max_examples=EXAMPLES, deadline=None)
@given(keys=st.sets(st.sampled_from(["x", "y", "**rest"]), max_size=3), alias=alias_names)
def test_required_field_calls(
    tmp_path_factory: pytest.TempPathFactory, keys: set[str], alias: str
) -> None:
    """A constructor call without the newly required `x` breaks; with `**` it may break;
    passing `x` is not an impact. Through a facade module with a generated alias."""
    args = ", ".join("**rest" if k == "**rest" else f"{k}='1'" for k in sorted(keys))
    tmp = tmp_path_factory.mktemp("req")
    (tmp / "facade.py").write_text(f"from mybind import Req as {alias}\n", encoding="utf-8")
    source = (
        f"from facade import {alias}\n\n\n"
        f"def f(rest: dict[str, str]) -> None:\n    {alias}({args})\n"
    )
    found = _scan_one(tmp, source)
    if "x" in keys:
        assert found == []
    elif "**rest" in keys:
        assert found == [(5, "may break", "Req.x")]
    else:
        assert found == [(5, "breaks", "Req.x")]


@pytest.mark.parametrize(
    ("annotation", "listed"),
    [
        ("Loc", True),
        ("Loc | None", True),
        ("None | Loc", True),
        ("Optional[Loc]", True),
        ("typing.Optional[Loc]", True),
        ("Loc | Keep", False),  # either class: the code does not show which
        ("list[Loc]", False),
        ("Keep", False),
        ("Optional[Keep]", False),
    ],
)
def test_annotations_show_the_class(tmp_path: Path, annotation: str, listed: bool) -> None:
    source = (
        "import typing\nfrom typing import Optional\nfrom mybind import Keep, Loc\n\n\n"
        f"def f(value: {annotation}) -> None:\n    value.with_line(0)\n"
    )
    found = _scan_one(tmp_path, source)
    assert found == ([(7, "may break", "Loc.line")] if listed else [])


@pytest.mark.parametrize(
    ("body", "listed"),
    [
        ("    if isinstance(value, Loc):\n        value.with_line(0)\n", True),
        ("    if isinstance(value, Loc) and ok:\n        value.with_line(0)\n", True),
        ("    if ok and isinstance(value, Loc):\n        value.with_line(0)\n", True),
        ("    if isinstance(value, Loc) or ok:\n        value.with_line(0)\n", False),
        ("    if isinstance(other, Loc):\n        value.with_line(0)\n", False),
        ("    if isinstance(value, Keep):\n        value.with_line(0)\n", False),
        ("    assert isinstance(value, Loc)\n    value.with_line(0)\n", True),
        ("    assert isinstance(value, Loc)\n    value = other\n    value.with_line(0)\n", False),
        ("    for item in items:\n        item.with_line(0)\n", True),
        ("    for item in others:\n        item.with_line(0)\n", False),
        ("    match value:\n        case Loc():\n            value.with_line(0)\n", True),
        ("    match value:\n        case Loc() as got:\n            got.with_line(0)\n", True),
        ("    match value:\n        case Keep():\n            value.with_line(0)\n", False),
        ("    copy = Loc(path='/a').model_copy()\n    copy.with_line(0)\n", True),
        ("    made = Loc.model_validate({})\n    made.with_line(0)\n", True),
        ("    Loc(path='/a').with_path('/b').with_line(0)\n", True),
    ],
)
def test_instance_evidence(tmp_path: Path, body: str, listed: bool) -> None:
    source = (
        "from mybind import Keep, Loc\n\n\n"
        "def f(value: object, other: object, ok: bool, items: list[Loc], others: list[Keep])"
        " -> None:\n" + body
    )
    found = _scan_one(tmp_path, source)
    assert [d for _, d, _ in found] == (["may break"] if listed else [])


def test_isinstance_shadowed_is_no_evidence(tmp_path: Path) -> None:
    source = (
        "from mybind import Loc\n\n\ndef isinstance(a: object, b: object) -> bool:\n"
        "    return True\n\n\ndef f(value: object) -> None:\n"
        "    if isinstance(value, Loc):\n        value.with_line(0)\n"
    )
    assert _scan_one(tmp_path, source) == []


@pytest.mark.parametrize(
    ("chain", "message"),
    [
        (
            "    match s:\n        case 'pending':\n            pass\n"
            "        case 'done':\n            pass\n",
            'chain over Status tests 2 member(s); NEW adds "paused", which reaches no branch',
        ),
        (
            "    match s:\n        case 'pending' | 'done':\n            pass\n"
            "        case _:\n            pass\n",
            'chain over Status tests 2 member(s); NEW adds "paused", which falls to its fallback',
        ),
        (
            "    if s == 'pending':\n        pass\n    elif 'done' == s:\n        pass\n"
            "    else:\n        pass\n",
            'chain over Status tests 2 member(s); NEW adds "paused", which falls to its fallback',
        ),
        (
            "    if s in ('pending', 'done'):\n        pass\n",
            'chain over Status tests 2 member(s); NEW adds "paused", which reaches no branch',
        ),
        ("    if s == 'pending':\n        pass\n", None),  # one member: no chain
        (
            "    match s:\n        case 'pending':\n            pass\n"
            "        case 'other':\n            pass\n",
            None,
        ),
    ],
)
def test_chain_notes(tmp_path: Path, chain: str, message: str | None) -> None:
    from acp_schema.codegen.drift.impact.run import Settings, scan
    from acp_schema.codegen.drift.impact.targets import build_targets
    from acp_schema.codegen.drift.schema_diff import diff_documents

    (tmp_path / "use.py").write_text(f"def f(s: str) -> None:\n{chain}", encoding="utf-8")
    changes, _ = diff_documents(OLD, _new())
    found = scan(Settings((tmp_path,)), build_targets(changes, OLD, _new())).impacts
    assert [(i.line, i.degree, i.change_class, i.message) for i in found] == (
        [(2, "note", "note", message)] if message else []
    )


def test_github_and_markdown_escape_what_they_must(tmp_path: Path) -> None:
    from acp_schema.codegen.drift.impact.judge import Impact
    from acp_schema.codegen.drift.impact.render import render
    from acp_schema.codegen.drift.impact.run import FileOutcome, Scan

    impact = Impact("a,b:c%.py", 3, 4, "X.y", "k", "may break", "api", "keyword", "50%\nx|y")
    outcome = FileOutcome(Path("a,b:c%.py"), "scanned", [impact])
    result = Scan([outcome], [], ["m"], [], [(Path("g.py"), "ab")])
    github = render(result, "github", "o", "n")
    assert github == (
        "::warning file=a%2Cb%3Ac%25.py,line=3,col=5,title=acp-schema impact%3A may break"
        "::X.y k: 50%25%0Ax|y\n"
    )
    markdown = render(result, "markdown", "o", "n")
    assert "| `a,b:c%.py:3:4` | `X.y` k | may break | 50% x\\|y |  |" in markdown
    text = render(result, "text", "o", "n")
    assert text.splitlines()[-1] == "bindings: m; 1 generated file(s) of other schemas not used"
    data = json.loads(render(result, "json", "o", "n"))
    assert data["bindings"]["other_generated"] == [{"path": "g.py", "schema_sha256": "ab"}]
    assert data["summary"]["may_break"] == 1
