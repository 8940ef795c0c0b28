"""Every occurrence of the removed API in a file (`occurrences`, from the tokens alone, no
code shared with the planner), the node each stands at (`occurrence_nodes`), and the one
verdict each gets (`accounting`): changed, unrelated with a proof of a kind from the
closed list in `proofs`, or reported (`problems` says what it is). `fast` gives the same
proofs from `ast` alone for files no rule can act on."""
