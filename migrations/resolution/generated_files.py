"""Whether a file that carries the generator's header is still what the generator wrote.

`acp-schema generate` seals every Python file it writes with a `# content-sha256:` line
(the fourth), the digest of everything below the four header lines. A file whose body
still has that digest holds only generated code; one that does not (a helper written by
hand into vendored bindings, an edit) is read like any other file. A file with the
header but no digest line (written by an older generator) cannot be told apart, so it
is read too."""

from __future__ import annotations

import hashlib

from acp_schema.migrations.resolution.bindings import is_generated_bindings

DIGEST_PREFIX = b"# content-sha256: "


def generated_unchanged(data: bytes) -> bool:
    """Whether `data` is generated bindings whose body matches its sealed digest."""
    if not is_generated_bindings(data):
        return False
    lines = data.split(b"\n", 4)
    if len(lines) < 5 or not lines[3].startswith(DIGEST_PREFIX):
        return False
    digest = lines[3][len(DIGEST_PREFIX) :].strip().decode("ascii", "replace")
    return hashlib.sha256(lines[4]).hexdigest() == digest
