"""Every occurrence of the removed API in a file (`occurrences`, from the tokens alone, no
code shared with the planner), the node each stands at (`occurrence_nodes`), and the one
verdict each gets (`accounting`): changed, unrelated with evidence, or reported."""
