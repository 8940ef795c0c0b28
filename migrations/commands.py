"""Deprecated: the libcst commands moved to `acp_schema.migrations.chunk_identity.commands`.

Kept so that `python -m libcst.tool codemod -x acp_schema.migrations.commands.ChunkIdentityCommand`
and old imports go on working, with a warning.
"""

from __future__ import annotations

import warnings

from acp_schema.migrations.chunk_identity.commands import *  # noqa: F403
from acp_schema.migrations.chunk_identity.commands import __all__ as __all__

warnings.warn(
    "acp_schema.migrations.commands moved to acp_schema.migrations.chunk_identity.commands",
    DeprecationWarning,
    stacklevel=2,
)
