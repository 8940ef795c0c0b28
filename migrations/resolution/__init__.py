"""What names and expressions in a user's code refer to among the ACP bindings: module
names as Python resolves them (`modules`: src/ layouts, PEP 420 namespace packages,
package roots from pyproject.toml), which modules are the bindings and what they define
(`bindings`), pre-revision copies vendored in the user's tree (`old_bindings`), what one
module's libcst metadata says (`module_facts`: qualified names, facades, aliases) and
the conservative facts about values built on it (`facts`).

Shared by `migrate` and by any other tool that reads user code. May import
`acp_schema.migrations.framework` only.
"""
