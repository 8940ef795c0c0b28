"""The published TypeScript SDK (`@agentclientprotocol/sdk`), installed once per version into
the acp-schema cache (`<cache>/npm/<version>`, see `acp_schema.codegen.upstream.cache_root`),
and its zod decoder for `session/update` params run in one node process per batch."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from acp_schema.codegen.upstream import PACKAGE, cache_root

SCRIPT = Path(__file__).with_name("decode.mjs")
EXPORTS = {"v1": "zSessionNotification", "v2": "zUpdateSessionNotification"}
NPM_TIMEOUT_S = 300


class Unavailable(Exception):
    """The SDK cannot be had here (no node/npm, offline); the message says why."""


def package_dir(version: str) -> Path:
    """The installed package, installing it first if it is not cached."""
    root = cache_root() / "npm" / version
    package = root / "node_modules" / PACKAGE
    if (package / "package.json").is_file():
        return package
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        raise Unavailable("node and npm are needed to run the TypeScript SDK (not on PATH)")
    root.mkdir(parents=True, exist_ok=True)
    command = [npm, "install", "--prefix", str(root), f"{PACKAGE}@{version}"]
    command += ["--no-audit", "--no-fund", "--ignore-scripts", "--no-save"]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=NPM_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        raise Unavailable(f"`npm install {PACKAGE}@{version}` timed out (offline?)") from None
    if done.returncode != 0 or not (package / "package.json").is_file():
        tail = " ".join(done.stderr.strip().splitlines()[-2:])
        raise Unavailable(f"`npm install {PACKAGE}@{version}` failed (offline?): {tail}")
    return package


def schema_path(package: Path, protocol: str) -> Path:
    return package / "schema" / protocol / "schema.unstable.json"


def decode(package: Path, protocol: str, texts: list[str]) -> list[dict[str, Any]]:
    """The SDK's verdict on each JSON text: {"ok": bool, "value": decoded JSON}."""
    node = shutil.which("node")
    if node is None:
        raise Unavailable("node is not on PATH")
    module = package / "dist" / protocol / "unstable" / "schema" / "zod.gen.js"
    done = subprocess.run(
        [node, str(SCRIPT), str(module), EXPORTS[protocol]],
        input="\n".join(texts) + "\n",
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    # split on "\n" only: JSON.stringify leaves U+2028 and friends unescaped
    results = [json.loads(line) for line in done.stdout.split("\n") if line]
    assert len(results) == len(texts), done.stderr
    return results
