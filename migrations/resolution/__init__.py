"""What names and expressions in a user's code refer to among the ACP bindings: module
names as Python resolves them (`modules`: src/ layouts, PEP 420 namespace packages,
package roots from pyproject.toml), which modules are the bindings and what they define
(`bindings`), pre-revision copies vendored in the user's tree (`old_bindings`), whether a
generated file is unchanged (`generated_files`), what one module's libcst metadata says
(`module_facts`: qualified names, facades, aliases) and the conservative facts about
values built on it (`facts`, for the planner).

Which binding class an expression may hold, for proofs that it holds no chunk: the
run's and the bindings' top-level definitions read with `ast` (`module_symbols`), what a
class or a type expression may hold (`type_evidence`: unions, Protocols, quoted
annotations, containers), narrowing by `isinstance`, tag tests and `case`
(`narrowing`), declared types of names and attributes (`declared_types`), and the value
facts on top (`value_evidence`).

Shared by `migrate` and by any other tool that reads user code. May import
`acp_schema.migrations.framework` only.
"""
