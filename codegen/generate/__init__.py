"""The bindings generator, `acp-schema generate`: pre-pass, datamodel-codegen, libcst
post-pass, fast target, and the package files it writes (`pipeline.py` drives them)."""
