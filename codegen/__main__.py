"""``python -m acp_schema.codegen``: the same as the ``acp-schema`` command."""

from .entry import main

raise SystemExit(main())
