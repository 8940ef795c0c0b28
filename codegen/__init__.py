"""Schema loading and checks, binding generation and drift tools for ACP schemas."""
