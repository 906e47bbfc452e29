"""The package's exception types, how a C API status becomes one
(_status_error), and get_last_error_string(). The names are re-exported by
_graph.py (graph_compiler._graph.X, cudnn.X) and the package."""

from typing import Optional

from . import _capi


class cudnnGraphNotSupportedError(Exception):
    """The graph (or a plan for it) is not supported."""


class GraphValidationError(cudnnGraphNotSupportedError, ValueError):
    """The compiler rejected the graph's text; the message is its full
    diagnostic output. Both ``except cudnnGraphNotSupportedError`` and
    ``except ValueError`` catch it."""


class TorchNotAvailableError(ImportError, RuntimeError):
    """A call that needs PyTorch (torch tensors, streams) ran without it. An
    ImportError as the frontend's; a RuntimeError as this package raised
    before it had the name."""


class EngineIdError(ValueError, RuntimeError):
    """An engine id the graph's plan list does not have."""


class GraphExecutionError(RuntimeError):
    """graphExecute failed."""


class GraphNoDeviceError(GraphExecutionError):
    """GPU execution was requested but the compiler has no GPU device."""


def get_last_error_string() -> str:
    """The last error the compiler's C API reported ("" when none, or
    without the library) — the frontend answers cuDNN's last error string."""
    if not _capi.available():
        return ""
    return _capi.last_error()


def _status_error(status: int, what: str, text: Optional[str] = None) -> Exception:
    if text is None:
        text = _capi.last_error()
    msg = f"{what} ({_capi.STATUS_NAMES.get(status, status)}): {text}"
    if status == _capi.GRAPH_ERROR_NO_DEVICE:
        return GraphNoDeviceError(msg)
    if status == _capi.GRAPH_ERROR_NOT_SUPPORTED:
        return cudnnGraphNotSupportedError(msg)
    if status in (_capi.GRAPH_ERROR_INVALID_GRAPH,):
        return GraphValidationError(msg)
    if status == _capi.GRAPH_ERROR_INVALID_ARGUMENT:
        return ValueError(msg)
    return GraphExecutionError(msg)
