"""libcst codemods that move downstream code onto the revised session-message API.

The `chunk-identity` family (docs/migration.md): participant IDs leave
`SessionMessageChunk` and travel on a `SessionMessage` upsert sent before the chunk.

One rule per module, each with its `EXAMPLES` (`examples`): `chunk_constructor`,
`chunk_builder`, `chunk_dict`, `chunk_read`, `chunk_import`, and `chunk_identity`,
which plans the whole family for a module; `accounting` gives every occurrence of a
removed name (`occurrences`, from the tokens; `occurrence_nodes`, the node each
stands at) its verdict and reports what no rule accounts for (rule `occurrence`).
Their libcst codemod commands are in `commands`.
Shared by them: `module_facts` (what the metadata says) and `facts` (what values
hold), `candidates` (the one collecting pass), `planner` with `sites` and `hoisting`
(where a chunk is sent and where its upsert goes), `placement` (one chunk's planned
edits), `stability` (an ID unchanged between build and send), `generators` (widening a
generator's element type), `upserts` (building the upsert), `helper_calls` (which
helpers qualify, their templates), `helper_sources` (a helper's call as a chunk
source), `helper_planning` (planning chunks that pass through helpers), `plan` (edits
and how they are applied), `syntax` and `imports` (plain libcst helpers), `bindings`
and `rules` (configuration and rule IDs), `acknowledge` (`# acp-migrate: ok[RULE]`
comments).
`acp-schema migrate` is `cli`, over `runner` (many files, worker processes) with
`file_migration` (one file) and `helper_views` (helpers called across modules), `files`
(discovery and safe writes), `modules` (module names as Python imports them), `config`
(`pyproject.toml` settings) and `old_bindings` (old chunk classes declared in the run's
own files).
"""
