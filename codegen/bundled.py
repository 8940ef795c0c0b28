"""Where the bundled schemas and the committed bindings live, by protocol version.

Kept free of heavy imports: the command line, the drift check and the generator all start
from here.
"""

from __future__ import annotations

from importlib import resources, util
from pathlib import Path

VERSIONS = ("v1", "v2")
SCHEMA_FILE = "schema.unstable.json"


def schema_dir() -> Path:
    """Root holding `<version>/schema.unstable.json`."""
    return Path(str(resources.files("acp_schema.codegen"))) / "schema"


def generated_dir() -> Path:
    """Root holding the `<version>/` binding packages (found without importing them)."""
    spec = util.find_spec(f"acp_schema.{VERSIONS[0]}")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"the bindings package acp_schema.{VERSIONS[0]} is not installed")
    return Path(next(iter(spec.submodule_search_locations))).parent


def checkout_root() -> Path | None:
    """The source checkout the bindings come from (an editable install maps `generated/` of
    a checkout onto `acp_schema.v1`, `.v2`), or None for an installed copy (a wheel in
    site-packages, `pip install --target`), which `generate` must not rewrite."""
    root = generated_dir()
    checkout = root.parent
    if root.name == "generated" and (checkout / "pyproject.toml").is_file():
        return checkout
    return None


def known_version(version: str) -> str:
    """`version` itself if it is a bundled protocol version, else ValueError."""
    if version not in VERSIONS:
        raise ValueError(f"unknown protocol version {version!r}; expected one of {VERSIONS}")
    return version


def bundled_schema(version: str) -> Path:
    """Path of the bundled schema of `version` (`v1` or `v2`)."""
    return schema_dir() / known_version(version) / SCHEMA_FILE


def default_output(version: str) -> Path:
    """The package directory the bindings of `version` are generated into."""
    return generated_dir() / known_version(version)
