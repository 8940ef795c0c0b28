"""The schema published upstream in the npm package ``@agentclientprotocol/sdk``.

``upstream_schema(version, protocol)`` returns the path of
``schema/<protocol>/schema.unstable.json`` of that package version (``stable=True``:
``schema/<protocol>/schema.json``), from a local cache when it is there and intact, else
fetched once with the ``npm`` client (``npm pack``, which honours the user's registry, proxy
and auth settings) and stored in the cache. One fetch caches every schema file the package
holds.

Cache layout, under ``--cache-dir``, ``$ACP_SCHEMA_CACHE``, ``$XDG_CACHE_HOME/acp-schema``
or ``~/.cache/acp-schema`` (first one set)::

    upstream/<version>/<protocol>/schema.unstable.json
    upstream/<version>/<protocol>/schema.unstable.json.sha256   # "<hex>  schema.unstable.json"
    upstream/<version>/<protocol>/schema.json                   # the stable schema, if any
    upstream/<version>/<protocol>/schema.json.sha256
    upstream/<version>/source.json                              # package, tarball sha1

Every read checks the file against its recorded sha256; a file that does not match is
fetched again (or, offline, reported). Files are written to a temporary name and renamed,
so an interrupted fetch never leaves a half-written schema that looks valid.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from acp_schema._input import InputError, read_bytes
from acp_schema.cli_common import os_reason

from .bundled import SCHEMA_FILE
from .bundled import VERSIONS as PROTOCOLS

PACKAGE = "@agentclientprotocol/sdk"
STABLE_SCHEMA_FILE = "schema.json"
SCHEMA_FILES = (SCHEMA_FILE, STABLE_SCHEMA_FILE)
NPM_TIMEOUT_S = 300
MAX_SCHEMA_BYTES = 64 * 1024 * 1024  # far above any real schema; guards against a bad tarball

# Exact versions only: a dist-tag like `latest` would make the cache lie later.
_VERSION = re.compile(r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?")


class UpstreamError(Exception):
    """The upstream schema cannot be had; the message says what to do."""


def cache_root(cache_dir: Path | None = None) -> Path:
    if cache_dir is not None:
        return cache_dir
    configured = os.environ.get("ACP_SCHEMA_CACHE")
    if configured:
        return Path(configured)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "acp-schema"


def schema_file(stable: bool = False) -> str:
    """The file name of the unstable (default) or the stable schema."""
    return STABLE_SCHEMA_FILE if stable else SCHEMA_FILE


def cached_schema_path(
    version: str, protocol: str, cache_dir: Path | None = None, *, stable: bool = False
) -> Path:
    return cache_root(cache_dir) / "upstream" / version / protocol / schema_file(stable)


def upstream_schema(
    version: str, protocol: str, *, cache_dir: Path | None = None, stable: bool = False
) -> Path:
    """Path of the verified cached schema, fetching it with npm first if needed."""
    if not _VERSION.fullmatch(version):
        raise UpstreamError(
            f"{version!r} is not an exact package version (like 2.1.0); list them with "
            f"`npm view {PACKAGE} versions`"
        )
    if protocol not in PROTOCOLS:
        raise UpstreamError(f"unknown protocol version {protocol!r}; expected one of {PROTOCOLS}")
    root = cache_root(cache_dir)
    existing = next((p for p in (root, *root.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise UpstreamError(f"cannot use {root} as the cache directory: {existing} is a file")
    path = cached_schema_path(version, protocol, cache_dir, stable=stable)
    problem = verify_cached(path)
    if problem is None:
        return path
    try:
        fetch(version, cache_root(cache_dir))
    except UpstreamError as exc:
        if problem != "not cached":
            raise UpstreamError(f"{exc}\n(the cached copy is unusable: {problem})") from None
        raise
    problem = verify_cached(path)
    if problem is not None:
        raise UpstreamError(f"{PACKAGE}@{version} has no schema/{protocol}/{path.name}")
    return path


def verify_cached(path: Path) -> str | None:
    """None if `path` holds the bytes its .sha256 file records, else what is wrong."""
    digest_file = _digest_path(path)
    if not path.is_file() and not digest_file.is_file():
        return "not cached"
    try:
        # the one reader: a cache entry swapped for a FIFO or /dev/zero is refused
        recorded = read_bytes(digest_file, limit=4096).decode("ascii").split()[0]
        actual = hashlib.sha256(read_bytes(path)).hexdigest()
    except (OSError, InputError, UnicodeDecodeError, IndexError) as exc:
        return f"cannot read {path} and its sha256: {exc}"
    if recorded != actual:
        return f"{path} does not match its recorded sha256 (changed after it was fetched)"
    return None


def fetch(version: str, root: Path) -> list[Path]:
    """`npm pack` the package and cache every schema file (per protocol, stable and
    unstable) it contains."""
    npm = shutil.which("npm")
    spec = f"{PACKAGE}@{version}"
    if npm is None:
        where = root / "upstream" / version / "<v1|v2>" / SCHEMA_FILE
        raise UpstreamError(
            f"npm is not on PATH, so {spec} cannot be fetched. Install Node.js (it brings "
            f"npm) and retry, or fill the cache by hand: {where} and, beside it, "
            f"{SCHEMA_FILE}.sha256 holding its sha256"
        )
    with tempfile.TemporaryDirectory(prefix="acp-schema-npm-") as tmp:
        tarball, source = _npm_pack(npm, spec, Path(tmp))
        written = []
        try:
            with tarfile.open(tarball, "r:gz") as archive:
                for protocol in PROTOCOLS:
                    for name in SCHEMA_FILES:
                        data = _member_bytes(archive, f"package/schema/{protocol}/{name}")
                        if data is not None:
                            target = root / "upstream" / version / protocol / name
                            _store(target, data)
                            _store(_digest_path(target), _digest_line(data, name).encode("ascii"))
                            written.append(target)
            if not written:
                raise UpstreamError(f"{spec} contains no schema/<version>/{SCHEMA_FILE}")
            _store(root / "upstream" / version / "source.json", source)
        except (OSError, tarfile.TarError) as exc:
            where = getattr(exc, "filename", None) or root
            raise UpstreamError(f"cannot cache {spec} in {where}: {os_reason(exc)}") from None
    return written


def _npm_pack(npm: str, spec: str, tmp: Path) -> tuple[Path, bytes]:
    command = [npm, "pack", spec, "--pack-destination", str(tmp), "--json", "--ignore-scripts"]
    advice = (
        f"check that the version exists (`npm view {PACKAGE} versions`) and that the npm "
        "registry is reachable; versions already in the cache work offline"
    )
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=NPM_TIMEOUT_S, cwd=tmp, check=False
        )
    except subprocess.TimeoutExpired:
        raise UpstreamError(f"`npm pack {spec}` took over {NPM_TIMEOUT_S} s; {advice}") from None
    except OSError as exc:
        raise UpstreamError(f"cannot run {npm}: {os_reason(exc)}") from None
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise UpstreamError(f"`npm pack {spec}` failed (exit {done.returncode}); {advice}\n{tail}")
    try:
        info = json.loads(done.stdout)[0]
        filename = str(info["filename"])
    except (ValueError, LookupError, TypeError):
        raise UpstreamError(f"`npm pack {spec} --json` printed no package description") from None
    tarball = tmp / Path(filename).name  # the name only: npm writes into --pack-destination
    try:
        data = tarball.read_bytes()
    except OSError as exc:
        raise UpstreamError(f"npm reported {filename}, but it cannot be read: {exc}") from None
    shasum = info.get("shasum")
    if isinstance(shasum, str) and hashlib.sha1(data).hexdigest() != shasum:
        raise UpstreamError(f"{filename} does not match the sha1 npm reported for it")
    source = {
        "package": PACKAGE,
        "version": info.get("version"),
        "tarball": filename,
        "tarball_sha1": shasum,
        "integrity": info.get("integrity"),
    }
    return tarball, (json.dumps(source, indent=2, sort_keys=True) + "\n").encode("utf-8")


def _member_bytes(archive: tarfile.TarFile, name: str) -> bytes | None:
    """One regular file of the tarball, read into memory (nothing is extracted to disk)."""
    try:
        member = archive.getmember(name)
    except KeyError:
        return None
    if not member.isfile() or member.size > MAX_SCHEMA_BYTES:
        raise UpstreamError(f"{name} in the package is not a regular file of sane size")
    handle = archive.extractfile(member)
    if handle is None:
        return None
    with handle:
        return handle.read()


def _digest_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _digest_line(data: bytes, name: str) -> str:
    return f"{hashlib.sha256(data).hexdigest()}  {name}\n"


def _store(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".acp-", dir=path.parent)  # short: NAME_MAX
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
