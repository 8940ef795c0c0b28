"""The impact report: which places in the user's code a schema upgrade touches."""
