"""Running a codemod over a tree, whatever it rewrites: which files a run looks at and how
they are written (`files`: `.gitignore`, excludes, all-or-nothing writes), settings from
`pyproject.toml` (`config`), what a rule reports (`findings`) and how rules are selected
(`rule_catalog`), acknowledgements in comments (`acknowledge`), the examples each rule
carries (`examples`), plain libcst helpers with no rule knowledge (`syntax`, `imports`),
worker processes (`pool`) and a progress bar on a terminal (`progress`).

Imports nothing from the other layers of `acp_schema.migrations`.
"""
