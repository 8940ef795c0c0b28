"""The `acp-schema` console script.

The script is installed with the package, but the tools behind it come with extras; without
them, say which extra is missing instead of showing an import traceback.
"""

from __future__ import annotations

import sys


def main() -> int:
    try:
        from .cli import main as run
    except ModuleNotFoundError as exc:
        print(
            f"acp-schema: {exc.name} is not installed; the command line comes with the "
            "tools extra: pip install 'acp-schema[codegen]'",
            file=sys.stderr,
        )
        return 2
    return run()
