"""libcst codemods that move downstream code onto the revised session-message API, and the
machinery to run them safely over large trees.

Four layers; each may import only the layers below it (tests/test_layout.py enforces it
with import-linter's layers contract, `[tool.importlinter]` in pyproject.toml):

- `cli`: the `acp-schema migrate` command (arguments, reports, `--check` gating).
- `chunk_identity`: the one migration so far. Participant IDs leave `SessionMessageChunk`
  and travel on a `SessionMessage` upsert sent before the chunk (docs/migration.md): its
  libcst commands, its planning, its rules (each with its own examples) and the
  accounting of every occurrence of the removed names.
- `resolution`: what a name or expression in a user's code refers to among the bindings,
  shared by any tool that reads user code: module names as Python resolves them, which
  modules are the bindings (and vendored copies of them), facades, aliases, the
  conservative facts about values.
- `framework`: what any codemod run needs and no migration knows: file discovery and
  all-or-nothing writes, settings, findings and rule selection, acknowledgements, rule
  examples, plain libcst helpers.

`acp_schema.migrations.commands` is the old home of the libcst commands, kept working with
a deprecation warning.
"""
