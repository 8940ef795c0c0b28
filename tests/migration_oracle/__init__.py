"""A behaviour oracle for `acp-schema migrate`.

Each case is a small downstream program. It runs twice against a recording connection:
the original code against old-shape bindings (chunks still take participant IDs), and
the migrated code against the real `acp_schema.v1` / `acp_schema.v2`. What reached the
Client is replayed into `acp_schema.transcripts.TranscriptStore`, and the two runs must
agree on every (transcript, message): the same participants, known no later than before,
and the same content; everything else sent must be the same, in the same order. A case
the tool does not rewrite must be reported and left byte-identical.

`python -m tests.migration_oracle` prints the figures.
"""

from collections import Counter

# Outcomes of the cases run in this process (tests/test_migrate_oracle.py fills it; the
# test session prints it, see tests/conftest.py).
FIGURES: Counter[str] = Counter()


def figures_line(counts: Counter[str]) -> str:
    total = sum(counts.values())
    return (
        f"migration oracle: {total} cases, {counts['equivalent']} migrated and equivalent, "
        f"{counts['reported']} reported and unchanged, {counts['unsound']} unsound"
    )
