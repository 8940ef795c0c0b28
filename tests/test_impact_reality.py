"""The impact report against reality (tests/impact_reality): for each release pair, the
sample's marked uses and look-alikes, and every probe that fails with the NEW bindings
listed, nothing that runs fine listed as breaks. Needs the published schemas (the npm
cache); skipped with the reason when they cannot be had."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_schema.codegen.upstream import UpstreamError

from .impact_reality import PAIRS, check_pair, generate


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Path], Path]:
    workdir = tmp_path_factory.mktemp("impact")
    try:
        return generate(PAIRS, workdir), workdir
    except UpstreamError as exc:
        pytest.skip(f"the published schemas cannot be had (offline, or no npm): {exc}")


@pytest.mark.parametrize(("old", "new"), PAIRS)
def test_listed_places_match_what_fails_at_run_time(
    old: str, new: str, roots: tuple[dict[str, Path], Path]
) -> None:
    bindings, workdir = roots
    result = check_pair(old, new, bindings, workdir)
    assert result.problems == []
    assert [p.name for p in result.missed] == []
    assert result.listed_but_fine == []
    if (old, new) != ("2.2.0", "2.3.0"):
        assert result.failing, "an API-breaking pair must have probes that fail"
    else:  # additions only: notes, never failures
        assert not result.failing
        assert {i.degree for i in result.impacts} == {"note"}
