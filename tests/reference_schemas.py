"""The published schemas some tests compare with, wherever this machine has them.

Three places hold them: copies beside the repository
(`../shared/reference/acp-sdk-<release>/<v1|v2>/schema.unstable.json`, present only where the
project is developed); the cache that the release matrix (`nox -s matrix`) and
`acp-schema diff --upstream` fill with npm (`codegen/upstream.py`: `~/.cache/acp-schema/
upstream/<release>/<v1|v2>/schema.unstable.json`, checked against its recorded sha256); and
the SDK packages the TypeScript conformance suite installs there with npm
(`tests/conformance/sdk.py`: `npm/<release>/node_modules/@agentclientprotocol/sdk/schema/`).
Tests take the first that holds the file and skip, saying where they looked and how to fill
the cache, when none does. Nothing here fetches: a test that may use the network says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_schema.codegen.bundled import SCHEMA_FILE
from acp_schema.codegen.upstream import PACKAGE, cache_root, cached_schema_path, verify_cached

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "reference"
RELEASES = ("2.0.0", "2.1.0", "2.4.0")  # the releases the tests compare with
VERSIONS = ("v1", "v2")


def reference_schema(release: str, version: str) -> Path | None:
    """The published `schema.unstable.json` of `release` (`2.1.0`), protocol `version`."""
    shared = SHARED / f"acp-sdk-{release}" / version / SCHEMA_FILE
    if shared.is_file():
        return shared
    cached = cached_schema_path(release, version)
    if cached.is_file() and verify_cached(cached) is None:
        return cached
    installed = cache_root() / "npm" / release / "node_modules" / PACKAGE / "schema" / version
    if (installed / SCHEMA_FILE).is_file():
        return installed / SCHEMA_FILE
    return None


def require_reference(release: str, version: str) -> Path:
    """`reference_schema`, or a skip that says where it looked and how to fill the cache."""
    path = reference_schema(release, version)
    if path is None:
        pytest.skip(
            f"the published {release} {version} schema is neither at "
            f"{SHARED / f'acp-sdk-{release}' / version / SCHEMA_FILE} nor in the npm cache "
            f"({cached_schema_path(release, version)}); fill the cache with "
            f"`acp-schema diff --upstream {release} {version}` or `python3 -m nox -s matrix`"
        )
    return path


def available_references() -> list[Path]:
    """Every published schema of RELEASES this machine holds (see `reference_schema`)."""
    found = (reference_schema(r, v) for r in RELEASES for v in VERSIONS)
    return [path for path in found if path is not None]
