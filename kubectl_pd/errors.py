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
    """RBAC refused a request; carries what was refused so callers may degrade (`refusal`: the message
    without its remedy, for a note that says the refusal after naming the read itself)."""

    def __init__(self, message: str, *, verb: str = "", resource: str = "", namespace: str = "",
                 refusal: str = "") -> None:
        super().__init__(message)
        self.verb = verb
        self.resource = resource
        self.namespace = namespace
        self.refusal = refusal or message


class BrokenAnswer(ClusterError):
    """The server's HTTP answer cannot be read: cut short, malformed, past the size bound, or encoded in a
    way we do not read. Never a guess at what it meant."""


class ListExpired(ClusterError):
    """A paged list's `continue` token expired (410) again after the list was restarted once."""


class FieldSelectorUnsupported(ClusterError):
    """The server refused a field selector (400 "field label not supported"): the caller may fall back to
    an unfiltered list and select locally."""

    def __init__(self, message: str, *, resource: str = "", selector: str = "") -> None:
        super().__init__(message)
        self.resource = resource
        self.selector = selector


class ConflictError(PdError):
    """The object already exists (HTTP 409)."""


class ServerError(ClusterError):
    """The API server answered 5xx: a write it answered so may have been applied all the same."""


class AmbiguousWrite(ClusterError):
    """A write that may have been applied: sent, then no answer, a 5xx, a closed connection or an
    unreadable success, and the read back could not settle it."""
