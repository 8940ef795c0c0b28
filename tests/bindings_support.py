"""Shared helpers for the binding tests: both protocol versions behind one interface."""

from __future__ import annotations

import json
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from pydantic import BaseModel

from acp_schema import v1, v2


@dataclass(frozen=True)
class Version:
    name: str
    module: ModuleType
    notification: type[BaseModel]  # params of session/update

    def decode(self, update: dict[str, Any]) -> BaseModel:
        """Decode `update` as the `update` of a session/update notification; return it."""
        raw = json.dumps({"sessionId": "s1", "update": update})
        note = self.notification.model_validate_json(raw)
        result: BaseModel = note.update  # type: ignore[attr-defined]
        return result

    def round_trip(self, update: dict[str, Any]) -> Any:
        """Decode then encode `update`; the JSON value that comes back."""
        raw = json.dumps({"sessionId": "s1", "update": update})
        note = self.notification.model_validate_json(raw)
        return json.loads(note.model_dump_json())["update"]


V1 = Version("v1", v1, v1.SessionNotification)
V2 = Version("v2", v2, v2.UpdateSessionNotification)
VERSIONS = (V1, V2)
