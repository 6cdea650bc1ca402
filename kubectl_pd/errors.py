"""Errors a user sees: one line on stderr and an exit code, never a traceback."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1  # the command ran and failed: not found, refused, API error, lint errors
EXIT_USAGE = 2  # bad flags, unreadable or malformed input


class PdError(Exception):
    """An expected failure with a message fit for `error: <message>`."""

    exit_code = EXIT_FAILED

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code


class InputError(PdError):
    """Malformed or unreadable input (files, flag values): exit 2."""

    exit_code = EXIT_USAGE


class NotFoundError(PdError):
    """The object asked for does not exist."""


class ApiUnavailable(PdError):
    """An API group or resource is not served (Kueue or the CRD not installed)."""


class ClusterError(PdError):
    """Talking to the cluster failed: unreachable, unauthorised, forbidden, server error."""


class ForbiddenError(ClusterError):
    """RBAC refused a request; carries what was refused so callers may degrade."""

    def __init__(self, message: str, *, verb: str = "", resource: str = "", namespace: str = "") -> None:
        super().__init__(message)
        self.verb = verb
        self.resource = resource
        self.namespace = namespace


class ConflictError(PdError):
    """The object already exists (HTTP 409)."""
