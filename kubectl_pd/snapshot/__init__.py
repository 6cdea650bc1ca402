"""`kubectl pd snapshot`: the recording Source and its words."""
