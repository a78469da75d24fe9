"""Errors of simdex calls: one exception class per status code the API documents.

Every exception carries the gRPC status: ``code`` (a ``grpc.StatusCode``) and ``details`` (the
server's message, which names the bad field and value for INVALID_ARGUMENT). Whether to retry
follows simdex.proto: INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS and RESOURCE_EXHAUSTED never
(fix the request); UNAVAILABLE and ABORTED are retried by the client for the calls where that is
safe (see ``simdex.Client``) before they reach you.
"""
import grpc


class SimdexError(Exception):
    """A simdex call failed with a gRPC status other than OK."""

    def __init__(self, code, details, method=""):
        super().__init__("%s: %s%s" % (code.name, details, " (%s)" % method if method else ""))
        self.code = code
        self.details = details
        self.method = method


class InvalidArgument(SimdexError):
    """Bad input; nothing of the request was written. Do not retry."""


class NotFound(SimdexError):
    """The named collection does not exist. Do not retry."""


class AlreadyExists(SimdexError):
    """A collection of that name exists with other settings."""


class ResourceExhausted(SimdexError):
    """A batch or message over the server's limit. Split it; do not retry as is."""


class Aborted(SimdexError):
    """Dedup's buckets stayed locked by other calls too long. Safe to retry."""


class Unavailable(SimdexError):
    """The server or a shard could not be reached."""


class DeadlineExceeded(SimdexError):
    """The call's deadline passed; a write may or may not have happened."""


_BY_CODE = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExists,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhausted,
    grpc.StatusCode.ABORTED: Aborted,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceeded,
}


def from_rpc_error(error, method=""):
    """The SimdexError for a ``grpc.RpcError`` raised by a call of ``method``."""
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    details = error.details() if hasattr(error, "details") else str(error)
    return _BY_CODE.get(code, SimdexError)(code, details or "", method)
