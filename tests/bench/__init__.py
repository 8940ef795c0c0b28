"""Benchmarks, run by `nox -s bench` (`python -m tests.bench [NAME...]`).

Each module here has a `main() -> None` that measures its subject side by side with its
baselines in the same run and prints ratios; none of them is a pass/fail test, because the
machines are shared and noisy.
"""
