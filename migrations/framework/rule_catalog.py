"""Rule IDs and their selection, for any migration.

A rule ID is `family/name` (`chunk-identity/read`); selecting a family selects every rule
whose ID starts with it. Each migration declares its rules in a `RuleCatalog`; the command
line and the acknowledgements read them from there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


class UnknownRuleError(ValueError):
    """A rule or family name that no migration defines."""


def family_of(rule: str) -> str:
    """The family a rule ID belongs to: the part before its `/`."""
    return rule.partition("/")[0]


class RuleCatalog:
    """The rules of one or more migrations: ID -> one-line description."""

    def __init__(self, rules: Mapping[str, str]) -> None:
        self.rules: dict[str, str] = dict(rules)
        families: dict[str, list[str]] = {}
        for rule in self.rules:
            families.setdefault(family_of(rule), []).append(rule)
        self.families: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in families.items()}
        self.all: frozenset[str] = frozenset(self.rules)

    def expand(self, names: Iterable[str]) -> frozenset[str]:
        """Rule IDs named by `names`, each a rule ID or a family name."""
        rules: set[str] = set()
        for name in names:
            if name in self.families:
                rules.update(self.families[name])
            elif name in self.rules:
                rules.add(name)
            else:
                known = ", ".join([*self.families, *self.rules])
                raise UnknownRuleError(f"unknown rule {name!r} (known: {known})")
        return frozenset(rules)

    def select(self, select: Iterable[str] = (), disable: Iterable[str] = ()) -> frozenset[str]:
        """The rules to run: `select` (default: all) minus `disable`."""
        selected = self.expand(select) or self.all
        return selected - self.expand(disable)
