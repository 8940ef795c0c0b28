"""Deprecated import path: the diff tool lives in `acp_schema.codegen.drift.schema_diff`."""

from __future__ import annotations

import warnings

from .drift.schema_diff import *  # noqa: F403  (the old module's public names)
from .drift.schema_diff import __all__ as __all__

warnings.warn(
    "acp_schema.codegen.schema_diff moved to acp_schema.codegen.drift.schema_diff",
    DeprecationWarning,
    stacklevel=2,
)
