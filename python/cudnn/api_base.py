"""``cudnn.api_base``: the base class of the frontend's operation APIs.

In the cuDNN frontend, every operation API object outside the graph API (its
CuTe DSL GEMMs, norms, attention kernels) derives from ``APIBase``: it is
built from sample tensors, then ``check_support()``, ``compile()`` and
``execute()`` run in that order, and calling the object runs ``execute()``
without the compiled kernel. Test harnesses walk ``APIBase``'s subclasses
to wrap their ``execute`` (the frontend's own conftest does so at import),
so the class must exist and be importable without torch or a GPU even
though this package defines no such operation of its own yet.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from typing import Any, Optional

__all__ = ["APIBase", "ceil_div"]


def ceil_div(a: int, b: int) -> int:
    """Smallest integer not below a / b (b > 0)."""
    return -(-a // b)


class APIBase(ABC):
    """An operation API: ``check_support()`` validates the configuration and
    sets ``_is_supported``; ``compile()`` prepares ``_compiled_kernel``;
    ``execute(*buffers, current_stream=None, skip_compile=False)`` runs it.
    ``api(*buffers)`` is ``execute(..., skip_compile=True)``."""

    def __init__(self) -> None:
        self._is_supported = False
        self._kernel = None
        self._compiled_kernel = None
        self._interpret_uint8_as_fp4x2 = False
        self._logger = logging.getLogger(type(self).__name__)

    @abstractmethod
    def check_support(self) -> bool:
        """True when the configuration runs; raise naming the rule otherwise."""

    @abstractmethod
    def compile(self, current_stream: Optional[Any] = None) -> None:
        """Prepare the kernel for the configuration checked above."""

    @abstractmethod
    def execute(self, *args: Any, current_stream: Optional[Any] = None, skip_compile: bool = False, **kwargs: Any) -> Any:
        """Run on the given buffers (the compiled kernel unless skip_compile)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.execute(*args, skip_compile=True, **kwargs)

    def _ensure_support_checked(self) -> None:
        # compile() before check_support(): check now rather than compile an
        # unchecked configuration.
        if not self._is_supported and not self.check_support():
            raise AssertionError(f"{type(self).__name__}: configuration not supported")

    def _get_default_stream(self, stream: Optional[Any]) -> Any:
        # The legacy default stream (0) when the caller names none.
        return 0 if stream is None else stream
