"""Generated bindings run `pattern` with pydantic-core's linear-time engine (Rust `regex`);
JSON Schema defines patterns as ECMA-262 regular expressions. On ASCII text without a
carriage return the two agree; docs/bindings.md lists where they do not (Unicode classes,
`.` and line separators), and the second test keeps that list true."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_schema.codegen.schema_generation import pattern_search

from .budget import examples
from .schema_validator import ecma_search

# Anchors, classes, quantifiers and alternations of the kinds schemas use.
PATTERNS = [
    "^[a-z]+$", "^(a+)+$", "\\d", "^\\d{2,3}$", "^[A-Z]{3}$", "\\w+", "\\bab", "^.$",
    "^a.c$", "\\s", "^$", "a|b$", "^(ab)*$", "[^a-c]", "^[\\w.-]+@[\\w-]+$", "x?$",
]  # fmt: skip
ASCII_TEXT = st.text(alphabet=st.sampled_from("abcxyzABC019 .-@_\t\n\x0b\x0c"), max_size=8)


@settings(max_examples=examples(300, 3000))
@given(pattern=st.sampled_from(PATTERNS), text=ASCII_TEXT)
def test_bindings_engine_agrees_with_ecma_262_on_ascii(pattern: str, text: str) -> None:
    assert pattern_search(pattern, text) == ecma_search(pattern, text)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("\\d", "\u0663"),  # ARABIC-INDIC DIGIT THREE
        ("\\w", "\u00e9"),
        ("\\b\u00e9", "\u00e9"),
        ("^.$", "\r"),
        ("^.$", "\u2028"),
        ("\\s", "\x85"),
    ],
)
def test_documented_deviations_are_real(pattern: str, text: str) -> None:
    """Each deviation docs/bindings.md names: the engine accepts, ECMA-262 does not."""
    assert pattern_search(pattern, text) is True
    assert ecma_search(pattern, text) is False


def test_a_final_newline_is_no_end_of_text_in_either() -> None:
    # Python's `re` says otherwise: the reason the tests judge with ECMA-262.
    assert pattern_search("^(a+)+$", "a\n") is False
    assert ecma_search("^(a+)+$", "a\n") is False
