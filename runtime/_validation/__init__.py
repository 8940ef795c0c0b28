"""How the generated models validate, beside the model base of `acp_schema._runtime`: the
decoding markers of the schema's `x-deserialize-*` keywords (`markers`), the JSON rules for
text (`json_text`: NaN refused, one error for bad JSON) and for Python input (`json_values`:
JSON values only, cycles and depth bounded, lone surrogates refused), tagged-union dispatch
(`tag_dispatch`), the clean first pass that keeps decoded models cheap to hold
(`clean_pass`), nesting limits (`json_nesting`) and readable errors (`errors`).

Private: the bindings reach it through `acp_schema._runtime`, which re-exports what they use.
"""
