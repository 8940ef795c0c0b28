"""Run every benchmark module of this package, or the ones named on the command line."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import tests.bench as package


def main(argv: list[str]) -> int:
    names = argv or sorted(
        m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_")
    )
    for name in names:
        print(f"\n== {name}")
        importlib.import_module(f"tests.bench.{name}").main()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
