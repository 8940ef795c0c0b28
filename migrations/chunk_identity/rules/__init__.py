"""The rules of the chunk-identity family, one per module, each with its own valid and
invalid examples (`EXAMPLES`), run by tests/test_migrate_rule_examples.py."""
