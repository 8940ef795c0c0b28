"""The occurrence accounting: every occurrence of the removed API that an independent
token scan finds (tests/migration_oracle/occurrence_scan.py, no code shared with the
tool) ends in exactly one verdict, changed, unrelated or reported, and nothing else is
listed. Checked on every behaviour-oracle case and on the fixture trees below."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from acp_schema.migrations.chunk_identity.rule_ids import ALL_RULES, OCCURRENCE
from acp_schema.migrations.chunk_identity.run import FileResult, Options, run
from tests.migration_oracle.cases import CASES
from tests.migration_oracle.harness import Case, _write
from tests.migration_oracle.occurrence_scan import scan_source
from tests.migration_oracle.trees import TREES, Tree

from .migrate_support import write_files

VERDICTS = {"changed", "unrelated", "reported"}
ACCOUNTED: Counter[str] = Counter()


def _run(root: Path, files: dict[str, str], *, verbatim: bool = False) -> list[FileResult]:
    if verbatim:
        write_files(root, files)
    else:
        _write(root, files)  # as the behaviour oracle writes a case
    paths = sorted(root / name for name in files if name.endswith(".py"))
    return run(paths, Options(rules=ALL_RULES))


def assert_accounted(results: list[FileResult]) -> Counter[str]:
    verdicts: Counter[str] = Counter()
    for result in results:
        if result.status == "failed":
            continue
        # A skipped file's result keeps no bytes (the run does not hold them): read it.
        expected = scan_source(result.original or result.path.read_bytes())
        listed = [
            (a.occurrence.line, a.occurrence.column, a.occurrence.name, a.occurrence.rank)
            for a in result.accounts
        ]
        assert len(listed) == len(set(listed)), f"{result.path}: an occurrence listed twice"
        assert set(listed) == expected, (
            f"{result.path}: missing {sorted(expected - set(listed))}, "
            f"extra {sorted(set(listed) - expected)}"
        )
        warned = {(f.line, f.column) for f in result.findings if f.rule == OCCURRENCE}
        for account in result.accounts:
            assert account.verdict in VERDICTS, (result.path, account)
            if account.verdict == "unrelated":
                assert account.evidence, (result.path, account)
            if account.verdict == "reported":
                assert account.rule, (result.path, account)
            if account.rule == OCCURRENCE:
                o = account.occurrence
                assert (o.line, o.column) in warned, (result.path, account)
            verdicts[account.verdict] += 1
    return verdicts


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_occurrence_of_an_oracle_case_is_accounted_for(case: Case, tmp_path: Path) -> None:
    ACCOUNTED.update(assert_accounted(_run(tmp_path, case.files)))


@pytest.mark.parametrize("tree", TREES, ids=[t.name for t in TREES])
def test_every_occurrence_of_a_fixture_tree_is_accounted_for(tree: Tree, tmp_path: Path) -> None:
    results = _run(tmp_path, tree.files, verbatim=True)
    ACCOUNTED.update(assert_accounted(results))
    by_line = {
        (r.path.relative_to(tmp_path).as_posix(), a.occurrence.line): a.verdict
        for r in results
        for a in r.accounts
    }
    if tree.name.startswith("look-alikes"):  # the noise budget: not one report
        assert [f for r in results for f in r.findings] == []
        assert {a.verdict for r in results for a in r.accounts} == {"unrelated"}
    for (path, snippet), verdict in tree.expect.items():
        text = tree.files[path]
        line = text[: text.index(snippet)].count("\n") + 1
        assert by_line.get((path, line)) == verdict, (path, snippet, by_line.get((path, line)))


def test_an_occurrence_takes_the_verdict_of_the_innermost_span(tmp_path: Path) -> None:
    # The keyword is moved (its call is edited: changed), and the loop around it gets a
    # note (reported): the innermost span that holds the occurrence decides, not the loop.
    source = (
        "from acp_schema.v1 import SessionMessageChunk, TextContent\n"
        "\n"
        "def f(conn, ids):\n"
        "    for i in ids:\n"
        "        conn.send(\n"
        "            SessionMessageChunk(\n"
        '                message_id=i, content=TextContent(text="t"), sender_session_id="a"\n'
        "            )\n"
        "        )\n"
    )
    (result,) = _run(tmp_path, {"loop.py": source}, verbatim=True)
    assert_accounted([result])
    assert [(a.occurrence.line, a.verdict) for a in result.accounts] == [(7, "changed")]
    # The note about the loop is reported on the statement around the call.
    assert [f.message for f in result.findings if f.kind == "warning"] == [
        "`i` changes inside the loop; sent the upsert before each chunk"
    ]
    assert result.new is not None
    assert b'message_id=i, content=TextContent(text="t"))' in result.new  # keyword moved


def test_two_names_in_one_string_give_two_different_lines(tmp_path: Path) -> None:
    source = (
        "from acp_schema.v2 import SessionMessageChunk\n\n"
        'QUERY = run("sender_session_id=:a OR sender_session_id=:b")\n'
    )
    write_files(tmp_path, {"m.py": source})
    [result] = run([tmp_path / "m.py"], Options(rules=ALL_RULES))
    lines = [f.format("m.py") for f in result.warnings if f.rule == OCCURRENCE]
    assert len(lines) == 2
    assert len(set(lines)) == 2, lines
    assert any("(removed name 2 in this string)" in line for line in lines)
