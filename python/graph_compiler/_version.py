"""backend_version(): the cuDNN this package's GPU runtime uses.

The frontend answers cudnnGetVersion() of the libcudnn it loaded. The
compiler's GPU runtime (lib/Runtime/Device.cpp) dlopens ``$GRAPH_LIBCUDNN``,
else ``libcudnn.so.9``; this module loads the same library through ctypes and
asks it. Without a loadable libcudnn the answer is the version of the cuDNN
headers the build was configured with (``GRAPH_CUDA_INCLUDE_DIR`` in the
build's CMakeCache.txt, its cudnn_version.h), and 0 only when neither is
there.
"""

import ctypes
import os
import re

_cached = None


def _library_version():
    names = []
    env = os.environ.get("GRAPH_LIBCUDNN")
    if env:
        names.append(env)
    names.append("libcudnn.so.9")
    for folder in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) + ["/usr/local/cuda/lib64", "/usr/local/cuda/lib"]:
        if folder:
            names.append(os.path.join(folder, "libcudnn.so.9"))
    for name in names:
        try:
            lib = ctypes.CDLL(name)
            get = lib.cudnnGetVersion
        except (OSError, AttributeError):
            continue
        get.restype = ctypes.c_size_t
        get.argtypes = []
        version = int(get())
        if version > 0:
            return version
    return 0


def _header_version():
    here = os.path.dirname(os.path.abspath(__file__))
    cache = os.path.join(os.path.dirname(os.path.dirname(here)), "build", "CMakeCache.txt")
    folders = []
    try:
        with open(cache) as f:
            for line in f:
                if line.startswith("GRAPH_CUDA_INCLUDE_DIR:"):
                    folders.append(line.split("=", 1)[1].strip())
    except OSError:
        pass
    folders.append("/usr/local/cuda/include")
    for folder in folders:
        try:
            with open(os.path.join(folder, "cudnn_version.h")) as f:
                text = f.read()
        except OSError:
            continue
        parts = [re.search(rf"#define\s+CUDNN_{k}\s+(\d+)", text) for k in ("MAJOR", "MINOR", "PATCHLEVEL")]
        if all(parts):
            major, minor, patch = (int(p.group(1)) for p in parts)
            return major * 10000 + minor * 100 + patch
    return 0


def backend_version() -> int:
    """cudnnGetVersion() of the libcudnn the GPU runtime loads (e.g. 91900),
    else the build's cuDNN headers' CUDNN_VERSION; 0 when neither exists."""
    global _cached
    if _cached is None:
        _cached = _library_version() or _header_version()
    return _cached


def backend_version_string() -> str:
    """backend_version() as "major.minor.patch" ("9.19.0"); "0.0.0" without cuDNN."""
    v = backend_version()
    return f"{v // 10000}.{(v % 10000) // 100}.{v % 100}"


def get_cudnn_version() -> int:
    """The frontend's first Python module's name for backend_version(): its
    bindings defined ``m.def("get_cudnn_version", &cudnnGetVersion)`` (later
    releases renamed it backend_version). The same number, e.g. 91900."""
    return backend_version()
