"""`schema check`'s union tag check finds the same collisions as comparing every pair of
variants (the plain reading of the rule), without its quadratic cost."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_schema.codegen.schema_keyword_checks import _TagIndex

from .budget import examples

TAGS = st.dictionaries(st.sampled_from("abc"), st.sampled_from("xyz"), max_size=3)


def _pairwise(variants: list[dict[str, str]]) -> list[tuple[int, int, tuple[str, ...]]]:
    out = []
    for j, mine in enumerate(variants):
        for i, theirs in enumerate(variants[:j]):
            shared = tuple(sorted(mine.keys() & theirs.keys()))
            if shared and all(mine[k] == theirs[k] for k in shared):
                out.append((i, j, shared))
                break
    return out


def _indexed(variants: list[dict[str, str]]) -> list[tuple[int, int, tuple[str, ...]]]:
    tags = _TagIndex()
    out = []
    for j, mine in enumerate(variants):
        clash = tags.first_clash(mine)
        if clash is not None:
            out.append((clash[0], j, clash[1]))
        tags.add(j, mine)
    return out


@settings(max_examples=examples(300, 3000))
@given(st.lists(TAGS, max_size=12))
def test_the_index_finds_what_comparing_pairs_finds(variants: list[dict[str, str]]) -> None:
    assert _indexed(variants) == _pairwise(variants)
