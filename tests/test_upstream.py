"""Behaviour of ``acp-schema diff --upstream`` (acp_schema.codegen.upstream).

No network and no real npm: a fake `npm` on PATH writes a tarball the way `npm pack`
does, and logs each call so the tests can see when the cache answered instead.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_schema.cli import main
from acp_schema.codegen import upstream

BUNDLED = Path(__file__).resolve().parents[1] / "codegen" / "schema"

FAKE_NPM = """\
import hashlib, io, json, os, sys, tarfile
from pathlib import Path

log = Path(os.environ["FAKE_NPM_LOG"])
with log.open("a") as handle:
    handle.write(json.dumps(sys.argv[1:]) + "\\n")
if os.environ.get("FAKE_NPM_FAIL"):
    print("npm error 404 Not Found - GET https://registry.example/sdk", file=sys.stderr)
    sys.exit(1)
args = sys.argv[1:]
spec = args[1]
dest = Path(args[args.index("--pack-destination") + 1])
version = spec.rsplit("@", 1)[1]
filename = "agentclientprotocol-sdk-" + version + ".tgz"
buffer = io.BytesIO()
with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
    for protocol in ("v1", "v2"):
        source = os.environ.get("FAKE_NPM_" + protocol.upper())
        if not source:
            continue
        data = Path(source).read_bytes()
        info = tarfile.TarInfo("package/schema/" + protocol + "/schema.unstable.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        stable = os.environ.get("FAKE_NPM_" + protocol.upper() + "_STABLE")
        if stable:
            data = Path(stable).read_bytes()
            info = tarfile.TarInfo("package/schema/" + protocol + "/schema.json")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
data = buffer.getvalue()
(dest / filename).write_bytes(data)
shasum = hashlib.sha1(data).hexdigest()
if os.environ.get("FAKE_NPM_BAD_SHASUM"):
    shasum = "0" * 40
print(json.dumps([{"name": "@agentclientprotocol/sdk", "version": version,
                   "filename": filename, "shasum": shasum, "integrity": "sha512-x"}]))
"""


@pytest.fixture
def fake_npm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Install the fake npm; returns the log of its calls."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "npm"
    script.write_text(f"#!{sys.executable}\n{FAKE_NPM}", encoding="utf-8")
    script.chmod(0o755)
    log = tmp_path / "npm-calls.log"
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("FAKE_NPM_LOG", str(log))
    monkeypatch.setenv("FAKE_NPM_V1", str(BUNDLED / "v1" / "schema.unstable.json"))
    monkeypatch.setenv("FAKE_NPM_V2", str(BUNDLED / "v2" / "schema.unstable.json"))
    return log


@pytest.fixture
def no_npm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def calls(log: Path) -> list[list[str]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def test_fetch_once_then_serve_from_cache_offline(
    tmp_path: Path, fake_npm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    path = upstream.upstream_schema("2.1.0", "v1", cache_dir=cache)
    assert path == cache / "upstream" / "2.1.0" / "v1" / "schema.unstable.json"
    assert path.read_bytes() == (BUNDLED / "v1" / "schema.unstable.json").read_bytes()
    digest = (path.parent / "schema.unstable.json.sha256").read_text(encoding="ascii")
    assert digest.split()[0] == hashlib.sha256(path.read_bytes()).hexdigest()
    # Both protocol versions come from the one tarball.
    assert (cache / "upstream" / "2.1.0" / "v2" / "schema.unstable.json").is_file()
    source = json.loads((cache / "upstream" / "2.1.0" / "source.json").read_text())
    assert source["package"] == "@agentclientprotocol/sdk"
    (call,) = calls(fake_npm)
    assert call[:2] == ["pack", "@agentclientprotocol/sdk@2.1.0"]
    assert "--json" in call and "--ignore-scripts" in call

    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))  # offline, no npm
    assert upstream.upstream_schema("2.1.0", "v2", cache_dir=cache).is_file()
    assert len(calls(fake_npm)) == 1


def test_tampered_cache_is_fetched_again(tmp_path: Path, fake_npm: Path) -> None:
    path = upstream.upstream_schema("2.1.0", "v1", cache_dir=tmp_path)
    path.write_text("{}", encoding="utf-8")
    assert upstream.verify_cached(path) is not None
    assert upstream.upstream_schema("2.1.0", "v1", cache_dir=tmp_path) == path
    assert upstream.verify_cached(path) is None
    assert len(calls(fake_npm)) == 2


def test_tampered_cache_without_npm_says_both(tmp_path: Path, no_npm: None) -> None:
    path = upstream.cached_schema_path("2.1.0", "v1", tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text("{}", encoding="utf-8")
    (path.parent / "schema.unstable.json.sha256").write_text("0" * 64, encoding="ascii")
    with pytest.raises(upstream.UpstreamError, match="npm is not on PATH") as info:
        upstream.upstream_schema("2.1.0", "v1", cache_dir=tmp_path)
    assert "does not match its recorded sha256" in str(info.value)


def test_prefilled_cache_needs_no_npm(tmp_path: Path, no_npm: None) -> None:
    data = (BUNDLED / "v1" / "schema.unstable.json").read_bytes()
    path = upstream.cached_schema_path("9.9.9", "v1", tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    (path.parent / "schema.unstable.json.sha256").write_text(digest + "\n", encoding="ascii")
    assert upstream.upstream_schema("9.9.9", "v1", cache_dir=tmp_path) == path


def test_cache_location_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ACP_SCHEMA_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert upstream.cache_root() == tmp_path / "xdg" / "acp-schema"
    monkeypatch.setenv("ACP_SCHEMA_CACHE", str(tmp_path / "mine"))
    assert upstream.cache_root() == tmp_path / "mine"
    assert upstream.cache_root(tmp_path / "flag") == tmp_path / "flag"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"FAKE_NPM_FAIL": "1"}, "npm error 404 Not Found"),
        ({"FAKE_NPM_BAD_SHASUM": "1"}, "does not match the sha1 npm reported"),
        ({"FAKE_NPM_V1": "", "FAKE_NPM_V2": ""}, "contains no schema"),
    ],
    ids=["npm-fails", "bad-tarball", "no-schema-in-package"],
)
def test_failed_fetch_is_a_clear_error(
    tmp_path: Path,
    fake_npm: Path,
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    message: str,
) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(upstream.UpstreamError, match=message):
        upstream.upstream_schema("2.1.0", "v1", cache_dir=tmp_path)
    assert not (tmp_path / "upstream" / "2.1.0" / "v1").exists()  # nothing half-written


def test_package_without_the_requested_protocol(
    tmp_path: Path, fake_npm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_NPM_V2", "")
    with pytest.raises(upstream.UpstreamError, match="has no schema/v2/"):
        upstream.upstream_schema("1.0.0", "v2", cache_dir=tmp_path)


@pytest.mark.parametrize("version", ["latest", "2.1", "../2.1.0", "2.1.0; rm"])
def test_only_exact_versions(tmp_path: Path, version: str) -> None:
    with pytest.raises(upstream.UpstreamError, match="not an exact package version"):
        upstream.upstream_schema(version, "v1", cache_dir=tmp_path)


# --- through the command line ------------------------------------------------------------


def diff_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, Any]:
    code = main(args)
    out = capsys.readouterr().out
    return code, json.loads(out) if out else None


def test_cli_compares_bundled_with_upstream(
    tmp_path: Path,
    fake_npm: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    published = json.loads((BUNDLED / "v1" / "schema.unstable.json").read_text(encoding="utf-8"))
    published["$defs"]["SessionMessage"]["properties"]["priority"] = {"type": "integer"}
    source = tmp_path / "published.json"
    source.write_text(json.dumps(published), encoding="utf-8")
    monkeypatch.setenv("FAKE_NPM_V1", str(source))
    base = ["diff", "--upstream", "3.0.0", "v1", "--cache-dir", str(tmp_path / "c")]
    code, report = diff_json([*base, "--format", "json"], capsys)
    assert code == 0
    assert report["old"] == "bundled v1"
    assert report["new"] == "@agentclientprotocol/sdk 3.0.0 v1"
    assert [(c["definition"], c["location"], c["kind"]) for c in report["changes"]] == [
        ("SessionMessage", "priority", "property-added")
    ]
    assert main([*base, "--fail-on", "any"]) == 1
    assert len(calls(fake_npm)) == 1  # the second run used the cache


def test_cli_upstream_without_npm_exits_2(
    tmp_path: Path, no_npm: None, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["diff", "--upstream", "2.1.0", "v1", "--cache-dir", str(tmp_path)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "npm is not on PATH" in err
    assert "Install Node.js" in err


def test_cli_upstream_needs_one_protocol_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", "--upstream", "2.1.0", "v1", "v2"]) == 2
    assert "with --upstream give one protocol version" in capsys.readouterr().err


def test_default_cache_is_outside_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ACP_SCHEMA_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    repo = Path(__file__).resolve().parents[1]
    root = upstream.cache_root().resolve()
    assert not root.is_relative_to(repo), os.fspath(root)


# --- stable schemas and generate --upstream ------------------------------------------------


def test_stable_schema_is_cached_from_the_same_fetch(
    tmp_path: Path, fake_npm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stable = tmp_path / "stable.json"
    stable.write_text('{"$defs": {}}', encoding="utf-8")
    monkeypatch.setenv("FAKE_NPM_V2_STABLE", str(stable))
    unstable = upstream.upstream_schema("2.4.0", "v2", cache_dir=tmp_path)
    path = upstream.upstream_schema("2.4.0", "v2", cache_dir=tmp_path, stable=True)
    assert path == unstable.with_name("schema.json")
    assert path.read_bytes() == stable.read_bytes()
    digest = (path.parent / "schema.json.sha256").read_text(encoding="ascii")
    assert digest == f"{hashlib.sha256(stable.read_bytes()).hexdigest()}  schema.json\n"
    assert len(calls(fake_npm)) == 1  # one tarball holds both
    path.write_text("{}", encoding="utf-8")  # tampered: fetched again
    assert upstream.upstream_schema("2.4.0", "v2", cache_dir=tmp_path, stable=True) == path
    assert path.read_bytes() == stable.read_bytes()
    with pytest.raises(upstream.UpstreamError, match=r"has no schema/v1/schema\.json"):
        upstream.upstream_schema("2.4.0", "v1", cache_dir=tmp_path, stable=True)


def test_generate_from_upstream(
    tmp_path: Path,
    fake_npm: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from acp_schema.codegen.generate import commands

    monkeypatch.setattr(commands, "_progress_wanted", lambda: True)  # as on a terminal
    out = tmp_path / "pkg" / "v1"
    args = ["generate", "--upstream", "2.1.0", "v1", "--cache-dir", str(tmp_path / "c")]
    assert main([*args, "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert "2.1.0/v1/schema.unstable.json -> " in printed.out
    # one line per stage on stderr, as it starts; then the schema's warnings (its folded
    # definitions, docs/bindings.md)
    lines = printed.err.splitlines()
    warnings = [line for line in lines if ": warning: " in line]
    assert len(warnings) == 4 and all("beside properties: folded" in w for w in warnings)
    stages = [line for line in lines if line not in warnings]
    assert [line.partition(": ")[2].partition(": ")[2] for line in stages] == [
        "checking the schema",
        "datamodel-codegen (and the meta-schema check meanwhile)",
        "post-pass (decoding markers, tagged unions, builders)",
        "method table, fast path, package facade",
        f"writing {out}",
    ]
    bundled = Path(__file__).resolve().parents[1] / "generated" / "v1"
    command = f"acp-schema generate --upstream 2.1.0 v1 --out {out}"
    for name in ("__init__.py", "_models.py", "methods.py"):  # the fake release is bundled
        ours = (out / name).read_text(encoding="utf-8").split("\n")
        theirs = (bundled / name).read_text(encoding="utf-8").split("\n")
        # the header names the command that writes the file again; the rest is the same
        assert ours[1] == f"# Do not edit: regenerate with `{command}`."
        assert theirs[1] == "# Do not edit: regenerate with `acp-schema generate`."
        assert ours[:1] + ours[2:] == theirs[:1] + theirs[2:]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["v1", "v2"], "with --upstream give one protocol version: v1 or v2"),
        ([], "with --upstream give one protocol version: v1 or v2"),
        (["v1", "--schema", "x.json"], "give --schema or --upstream, not both"),
        (["v1"], "--upstream needs --out DIR"),
    ],
)
def test_generate_upstream_usage_errors_exit_2(
    extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["generate", "--upstream", "2.1.0", *extra]) == 2
    assert message in capsys.readouterr().err


def test_stable_needs_upstream(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "--stable", "--schema", "x.json", "--out", "d"]) == 2
    assert "--stable goes with --upstream" in capsys.readouterr().err


def test_generate_upstream_without_npm_exits_2(
    tmp_path: Path, no_npm: None, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["generate", "--upstream", "2.1.0", "v1", "--cache-dir", str(tmp_path)]
    assert main([*args, "--out", str(tmp_path / "out")]) == 2
    assert "npm is not on PATH" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
