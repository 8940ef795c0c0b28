"""Running a codemod over a tree, whatever it rewrites: the files of a run on disk
(`disk/`: discovery with `.gitignore` and excludes, reading on demand, all-or-nothing
writes), settings from `pyproject.toml` (`config`), parsing with CPython's error positions
(`parsing`), worker processes (`pool`), a progress bar (`progress`), what a rule reports
(`findings`) and how rules are selected (`rule_catalog`), acknowledgements in comments
(`acknowledge`), the examples each rule carries (`examples`), and plain libcst helpers
with no rule knowledge (`syntax`, `imports`).

Imports nothing from the other layers of `acp_schema.migrations`.
"""
