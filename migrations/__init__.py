"""libcst codemods that move downstream code onto the revised session-message API.

The `chunk-identity` family (docs/migration.md): participant IDs leave
`SessionMessageChunk` and travel on a `SessionMessage` upsert sent before the chunk.

One rule per module: `chunk_constructor`, `chunk_builder`, `chunk_dict`, `chunk_read`,
`chunk_import`, and `chunk_identity`, which plans the whole family for a module. Their
libcst codemod commands are in `commands`. Shared by them: `facts` (what the metadata
proves), `candidates` (the one collecting pass), `planner` and `upserts` (where a chunk
is sent and where its upsert goes), `helper_calls` (chunks returned by helpers), `plan`
(edits and how they are applied), `syntax` and `imports` (plain libcst helpers),
`bindings` and `rules` (configuration and rule IDs).
`acp-schema migrate` is `cli`, over `runner` (many files, worker processes), `files`
(discovery and safe writes), `config` (`pyproject.toml` settings) and `old_bindings`
(old chunk classes declared in the run's own files).
"""
