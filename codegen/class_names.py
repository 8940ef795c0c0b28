"""The class name a schema definition gets in the bindings (documented in docs/bindings.md).

A definition name that is already a plain ASCII class name (`[A-Z][A-Za-z0-9]*`) is kept.
Any other is mangled: split at every character that is not an ASCII letter or digit, each
part capitalised and joined (`session/update` -> `SessionUpdate`, `foo_bar` -> `FooBar`),
`Def` put in front of a leading digit, `Definition` for a name with no letter or digit. A
name the generated modules import or define themselves (`Field`, `Literal`, `Side`, ...)
gets `Model` appended, as datamodel-code-generator does. Two definitions that end up with
one class name are an error of `acp-schema schema check`.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable

_PLAIN = re.compile(r"[A-Z][A-Za-z0-9]*")

# The runtime names the post-pass imports into the generated model modules (module_level
# builds that import from this tuple, so a marker added there is reserved here too).
RUNTIME_NAMES = (
    "MISSING", "DefaultOnError", "DefaultOnNull", "JsonInteger", "SkipInvalidItems",
    "TagDispatch", "WireEnum",
)  # fmt: skip

# Names the generated modules (`_models.py`, `_notifications.py`, `methods.py`, `fast.py`,
# `__init__.py`) import, define or use unqualified: a class of that name would shadow them.
# tests/test_class_name_reservation.py checks every name the generated modules bind or use.
RESERVED = frozenset(
    {
        "Annotated", "Any", "Literal", "Optional", "Union", "ConfigDict", "Field", "BaseModel",
        "RootModel", "AnyUrl", "AwareDatetime", "Enum", "IntEnum", "StrEnum", "AcpModel",
        "TypeAliasType", "TypeAlias", "Self", "Method", "MethodTable", "Side", "METHODS",
        "Model", "Decoded", "FastStruct", "AttributeError",
        *RUNTIME_NAMES,
    }
)  # fmt: skip


def pascal(text: str) -> str:
    """`agent_message_chunk` -> `AgentMessageChunk`; `session/update` -> `SessionUpdate`."""
    parts = [p for p in re.split(r"[^0-9A-Za-z]+", text) if p]
    return "".join(p[:1].upper() + p[1:] for p in parts)


def class_name(definition: str) -> str:
    """The class name of the definition called `definition`."""
    if _PLAIN.fullmatch(definition):
        name = definition
    else:
        name = pascal(definition) or "Definition"
        if name[0].isdigit():
            name = "Def" + name
    if name in RESERVED or keyword.iskeyword(name):
        name += "Model"
    return name


def colliding(definitions: Iterable[str]) -> dict[str, list[str]]:
    """Class name -> the definitions that would share it (only names shared by several)."""
    by_class: dict[str, list[str]] = {}
    for name in definitions:
        by_class.setdefault(class_name(name), []).append(name)
    return {cls: names for cls, names in by_class.items() if len(names) > 1}
