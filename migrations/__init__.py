"""libcst codemods that move downstream code onto the revised session-message API."""
