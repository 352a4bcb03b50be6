"""The validator's usage / I/O error, shared by the folder validator and `--split` (exit status 2)."""


class InputError(Exception):
    """A path cannot be read, or the arguments make no sense: exit status 2."""
