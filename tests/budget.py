"""How many examples the property tests draw: a quick budget by default, the long one with
`ACP_SCHEMA_LONG=1` (`python3 -m nox -s tests_long`).

The quick budget keeps the README's test command within minutes on a 2-core machine; every
property still runs, on fewer drawn examples (in CI, the same ones each run: the `ci`
profile of tests/conftest.py derandomizes). The long budget is what the properties drew
before, for CI runs with time to spare and for changes to the code a property covers.
"""

from __future__ import annotations

import os

LONG = os.environ.get("ACP_SCHEMA_LONG", "") not in ("", "0")


def examples(quick: int, long: int) -> int:
    """`max_examples` for a property: `quick` by default, `long` with ACP_SCHEMA_LONG=1."""
    return long if LONG else quick
