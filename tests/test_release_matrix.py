"""Every published ACP schema generates usable bindings (tests/release_matrix.py).

Slow (minutes), so it carries the `matrix` marker: plain `pytest` leaves it out,
`nox -s tests` (what CI runs) and `nox -s matrix` run it. It needs the published schemas:
fetched once with npm into the cache, and skipped with the reason when they cannot be had.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from acp_schema.codegen.upstream import UpstreamError

from .release_matrix import fetch_all, run

pytestmark = pytest.mark.matrix


def test_every_published_release_generates_imports_decodes_and_type_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        cells = fetch_all()
    except UpstreamError as exc:
        pytest.skip(f"the published schemas cannot be had (offline, or no npm): {exc}")
    with capsys.disabled():  # progress lines: minutes of silence look like a hang in CI logs
        started = time.monotonic()

        def say(line: str) -> None:
            print(f"release matrix [{time.monotonic() - started:4.0f} s]: {line}", flush=True)

        print()
        matrix = run(cells, tmp_path, progress=say)
        print(matrix.summary())
    assert [(c.release, c.protocol, c.flavour, c.problems) for c in matrix.failed] == []
    assert matrix.generated == matrix.unique == matrix.mypy_clean
    assert all(c.decoded > 10 for c in matrix.cells)
