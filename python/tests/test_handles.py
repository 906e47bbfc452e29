"""Handles bind a device and a stream (issue 11): create_handle() takes the
current CUDA device, the C API selects a GPU per thread and names one that
does not exist. The GPU side runs against the fake two-device driver and
cuDNN of unittests/Runtime/FakeCuda.cpp (built with GraphRuntimeDeviceTest),
in a subprocess, since the runtime opens its driver once per process."""

import os
import subprocess
import sys
import textwrap
import types

import pytest

import graph_compiler as gc
from graph_compiler import _capi, _graph
from conftest import REPO, needs_lib

FAKES = os.path.join(REPO, "build", "unittests", "Runtime")
FAKE_CUDA = os.path.join(FAKES, "libGraphFakeCuda.so")
FAKE_CUDNN = os.path.join(FAKES, "libGraphFakeCudnn.so")
needs_fakes = pytest.mark.skipif(
    not (os.path.exists(FAKE_CUDA) and os.path.exists(FAKE_CUDNN)),
    reason="the fake driver is not built (ninja -C build GraphRuntimeDeviceTest)",
)


def run_with_fake_driver(body: str) -> str:
    env = dict(os.environ)
    env.update(
        GRAPH_LIBCUDA=FAKE_CUDA,
        GRAPH_LIBCUDNN=FAKE_CUDNN,
        FAKE_CUDA_DEVICES="2",
        PYTHONPATH=os.path.join(REPO, "python") + os.pathsep + env.get("PYTHONPATH", ""),
    )
    env.pop("CUDA_VISIBLE_DEVICES", None)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(body)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_handle_takes_torch_current_device(monkeypatch):
    # A stand-in torch whose CUDA is initialized with device 1 current.
    cuda = types.SimpleNamespace(is_available=lambda: True, is_initialized=lambda: True, current_device=lambda: 1)
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(cuda=cuda))
    handle = gc.create_handle()
    assert handle.device == 1
    assert "cuda:1" in repr(handle)


def test_handle_without_torch_cuda_asks_the_runtime(monkeypatch):
    cuda = types.SimpleNamespace(is_available=lambda: False, is_initialized=lambda: False, current_device=lambda: 7)
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(cuda=cuda))
    monkeypatch.setattr(_capi, "current_device", lambda: 3)
    assert gc.create_handle().device == 3


def test_set_stream_needs_a_handle():
    with pytest.raises(ValueError, match="set_stream needs a handle"):
        gc.set_stream(None, 0)


def test_on_device_none_selects_nothing(monkeypatch):
    calls = []
    monkeypatch.setattr(_capi, "available", lambda: True)

    class Lib:
        def graphSetDevice(self, n):
            calls.append(n)
            return _capi.GRAPH_OK

    monkeypatch.setattr(_capi, "lib", lambda: Lib())
    with _capi.on_device(None):
        pass
    assert calls == []
    with _capi.on_device(1):
        assert calls == [1]
    assert calls == [1, -1]  # the choice is cleared on the way out


@needs_lib
@needs_fakes
def test_devices_through_the_c_api():
    out = run_with_fake_driver(
        """
        import cudnn
        from graph_compiler import _capi
        print("count", _capi.device_count())
        print("current", _capi.current_device())
        try:
            with _capi.on_device(5):
                pass
        except ValueError as e:
            print("error", e)
        with _capi.on_device(1):
            print("inside", _capi.current_device())
        print("after", _capi.current_device())
        h = cudnn.create_handle()
        print("handle", h.device)
        """
    )
    lines = dict(line.split(" ", 1) for line in out.strip().splitlines())
    assert lines["count"] == "2"
    assert lines["current"] == "0"
    assert lines["error"] == "selecting the GPU: GPU device 5 does not exist: this machine has 2 CUDA devices (ordinals 0-1)"
    assert lines["inside"] == "1"
    assert lines["after"] == "0"
    assert lines["handle"] == "0"


@needs_lib
@needs_fakes
def test_set_stream_of_another_device_is_refused():
    # A handle on GPU 1 given GPU 0's own stream: the runtime refuses it by
    # name instead of running cuDNN on the wrong device.
    out = run_with_fake_driver(
        """
        import ctypes, cudnn
        from graph_compiler import _capi, _graph
        lib = _capi.lib()
        with _capi.on_device(0):
            lib.graphSetStream(None)  # opens GPU 0: its own stream exists
        h = _graph._Handle(device=1)
        fake = ctypes.CDLL(%r)
        fake.cuStreamCreate.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
        fake.cuCtxSetCurrent.argtypes = [ctypes.c_void_p]
        fake.cuDevicePrimaryCtxRetain.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int]
        ctx = ctypes.c_void_p()
        fake.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0)
        fake.cuCtxSetCurrent(ctx)
        stream = ctypes.c_void_p()
        assert fake.cuStreamCreate(ctypes.byref(stream), 0) == 0
        try:
            cudnn.set_stream(h, stream.value)
            print("accepted")
        except RuntimeError as e:
            print("refused", e)
        """
        % FAKE_CUDA
    )
    assert out.startswith("refused set_stream: setting the stream: GPU 1: the stream belongs to another CUDA context"), out
