"""The chunk-identity migration: participant IDs passed to, set on or read from a
`SessionMessageChunk` move to a metadata-only `SessionMessage` upsert sent before the
chunk (docs/migration.md).

Its modules, each importing only those listed after it (`[tool.importlinter]`):
- `run`, `helper_views`, `file_migration`: a whole run (old bindings found first, helpers
  called across modules settled last) and one file;
- `commands`: the libcst codemod commands (`python -m libcst.tool codemod`);
- `consumers`: rule consumer, the code that consumes what a rewrite changed;
- `family` and `helper_planning`: the planning of every rule for one module, and of chunks
  that pass through helper functions;
- `rules/`: one module per rule, each with its `EXAMPLES`;
- `accounting/`: every occurrence of a removed name and its verdict;
- `planning/`: where a chunk is sent and where its upsert goes, and how edits are applied;
- `candidates`: the one collecting pass the rules read; `rule_ids`: the family's rule IDs.

May import `acp_schema.migrations.resolution` and `acp_schema.migrations.framework`.
"""
