"""The tests that compare with published schemas find them in the npm cache too."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from tests import reference_schemas


def test_the_npm_cache_stands_in_for_the_copies_beside_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reference_schemas, "SHARED", tmp_path / "no-shared")
    monkeypatch.setenv("ACP_SCHEMA_CACHE", str(tmp_path / "cache"))
    assert reference_schemas.reference_schema("2.1.0", "v2") is None
    with pytest.raises(
        pytest.skip.Exception, match=re.escape("acp-schema diff --upstream 2.1.0 v2")
    ):
        reference_schemas.require_reference("2.1.0", "v2")

    cached = tmp_path / "cache" / "upstream" / "2.1.0" / "v2" / "schema.unstable.json"
    cached.parent.mkdir(parents=True)
    cached.write_text("{}")
    digest = hashlib.sha256(b"{}").hexdigest()
    (cached.parent / "schema.unstable.json.sha256").write_text(f"{digest}  schema.unstable.json\n")
    assert reference_schemas.require_reference("2.1.0", "v2") == cached
    assert reference_schemas.available_references() == [cached]

    cached.write_text("{ }")  # changed after it was fetched: not trusted
    assert reference_schemas.reference_schema("2.1.0", "v2") is None

    # the SDK package the conformance suite installed with npm holds the schema too
    sdk = tmp_path / "cache" / "npm" / "2.1.0" / "node_modules" / "@agentclientprotocol" / "sdk"
    (sdk / "schema" / "v2").mkdir(parents=True)
    (sdk / "schema" / "v2" / "schema.unstable.json").write_text("{}")
    assert reference_schemas.reference_schema("2.1.0", "v2") == (
        sdk / "schema" / "v2" / "schema.unstable.json"
    )
