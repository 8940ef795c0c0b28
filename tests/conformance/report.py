"""Agreement figures of the conformance run, printed in pytest's terminal summary (so they
show in CI logs with or without `-s`)."""

from __future__ import annotations

LINES: list[str] = []
