"""`python -m acp_schema`: the same as the `acp-schema` command."""

from .cli import console_main

console_main()
