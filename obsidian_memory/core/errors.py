"""Errors a person gets as one clear line (and a non-zero exit), never as a traceback."""


class UserError(Exception):
    """Bad input or a state the user can fix. `code` is the exit status (2 by convention)."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code
