"""Generated inputs for `acp-schema migrate`.

- Random modules from `hypothesmith` (Python's grammar), some of their names replaced
  by the removed names, the chunk class or a chunk tag: the run never crashes, a second
  run changes nothing, and a module that names nothing of the removed API comes back
  byte-identical.
- Random modules that migrate changes, with comment lines of any indentation between
  and after their lines: every comment of the original is still in the migrated file.
- Random runnable programs (tests/migration_oracle/programs.py) run against the
  recording connection on old-shape bindings that record where a chunk's IDs are
  touched (tests/migration_oracle/tracing.py): no occurrence on such a line is called
  unrelated, and no program is silent (behaviour changed while `--check` passes).
"""

from __future__ import annotations

import io
import keyword
import tempfile
import tokenize
from collections import Counter
from pathlib import Path

import hypothesmith
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from acp_schema.migrations.chunk_identity.rule_ids import ALL_RULES
from acp_schema.migrations.chunk_identity.run import Options, run
from tests.budget import examples
from tests.migration_oracle.catalogue_harness import Entry, evaluate
from tests.migration_oracle.programs import programs
from tests.migration_oracle.tracing import tracing

SWAPS = (
    "sender_session_id",
    "recipientSessionId",
    "with_sender_session_id",
    "SessionMessageChunk",
    "\uff53ender_session_id",  # NFKC: a fullwidth s, still the removed name for Python
)
STRINGS = ('"session_message_chunk"', '"senderSessionId"', '"sender_session_id and more"')


@st.composite
def mentioning(draw: st.DrawFn) -> str:
    """A hypothesmith module with some identifiers (and strings) swapped for the removed
    API's names; most modules keep none, which is the byte-identical case."""
    source = draw(hypothesmith.from_grammar())
    if not draw(st.booleans()):
        return source
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return source
    out = []
    for token in tokens:
        text = token.string
        if (
            token.type == tokenize.NAME
            and not keyword.iskeyword(text)
            and draw(st.integers(0, 3)) == 0
        ):
            text = draw(st.sampled_from(SWAPS))
        elif token.type == tokenize.STRING and draw(st.integers(0, 2)) == 0:
            text = draw(st.sampled_from(STRINGS))
        out.append(token._replace(string=text))
    try:
        return tokenize.untokenize(out)
    except ValueError:
        return source


def _migrate(root: Path, source: str) -> tuple[bytes, bytes | None, bytes | None]:
    path = root / "mod.py"
    path.write_text(source, encoding="utf-8")
    original = path.read_bytes()
    [first] = run([path], Options(rules=ALL_RULES))
    assert first.error is None or not first.error.startswith(("internal error", "worker")), (
        first.error
    )
    if first.new is None:
        return original, None, None
    path.write_bytes(first.new)
    [second] = run([path], Options(rules=ALL_RULES))
    return original, first.new, second.new


@settings(
    max_examples=examples(8, 60),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(mentioning())
def test_random_modules_never_crash_and_migrate_once(source: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        original, first, second = _migrate(Path(tmp), source)
    assert second is None, "a second run changed the module again"
    names = ("sender", "recipient", "Sender", "Recipient", "SessionMessageChunk", "session_message")
    if not any(n.encode() in original for n in names) and original.isascii():
        assert first is None, "a module naming nothing of the removed API was changed"


SENDS = (
    "from acp_schema.v2 import SessionMessageChunk\n\n\n"
    "def _send(out, mid, me):  # sends\n"
    "    out.put(SessionMessageChunk(message_id=mid, content='x', sender_session_id=me))\n"
)


@st.composite
def commented(draw: st.DrawFn) -> str:
    """A module that migrate changes (it sends a chunk), followed by a hypothesmith
    module with comment lines of any indentation put between its lines, at its end
    too, with or without a final newline."""
    lines = draw(hypothesmith.from_grammar()).splitlines()
    for _ in range(draw(st.integers(0, 4))):
        where = draw(st.integers(0, len(lines)))
        indent = draw(st.sampled_from(["", " ", "   ", "\t", "    "]))
        lines.insert(where, f"{indent}# c{where}")
    for index in range(draw(st.integers(0, 3))):
        indent = draw(st.sampled_from(["", " ", "   ", "\t"]))
        lines.append(f"{indent}# tail{index}")
    end = draw(st.sampled_from(["", "\n"]))
    return SENDS + "\n".join(lines) + end


def _comments(source: bytes) -> Counter[str]:
    tokens = tokenize.tokenize(io.BytesIO(source).readline)
    return Counter(t.string for t in tokens if t.type == tokenize.COMMENT)


@settings(
    max_examples=examples(10, 60),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(commented())
def test_a_migrated_module_keeps_every_comment(source: str) -> None:
    try:
        compile(source, "mod.py", "exec")
        before = _comments(source.encode())
    except (SyntaxError, ValueError, tokenize.TokenError):
        assume(False)
    with tempfile.TemporaryDirectory() as tmp:
        _, first, _ = _migrate(Path(tmp), source)
    if first is not None:
        assert not before - _comments(first), "a comment of the original was lost"


@settings(
    max_examples=examples(10, 50),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(programs())
def test_generated_programs_are_never_silent_and_touched_lines_never_unrelated(
    files: dict[str, str],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        with tracing(root / "old") as touches:
            # `noise`: a program made only of look-alikes sends no chunk, which is fine here.
            entry = Entry("generated", "generated", files, noise=True, verbatim=True)
            result = evaluate(entry, root)
    assert not any("old program fails" in p for p in result.problems), result.explain()
    assert result.outcome != "silent", result.explain() + "\n" + files["main.py"]
    for name, accounts in result.accounts.items():
        for account in accounts:
            if (name, account.occurrence.line) in touches.lines:
                assert account.verdict != "unrelated", (name, account, files[name])
