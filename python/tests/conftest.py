import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import graph_compiler  # noqa: E402
from graph_compiler import _capi  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
GRAPH_OPT = os.environ.get("GRAPH_OPT", os.path.join(REPO, "build", "bin", "graph-opt"))

needs_lib = pytest.mark.skipif(
    not _capi.available(),
    reason="libGraphCAPI.so is not built (ninja -C build GraphCAPI, or set GRAPH_CAPI_LIBRARY)",
)
needs_graph_opt = pytest.mark.skipif(not os.path.exists(GRAPH_OPT), reason=f"graph-opt is not built ({GRAPH_OPT})")


def graph_opt(text):
    """Parse and verify text with graph-opt; returns (ok, output)."""
    proc = subprocess.run([GRAPH_OPT, "-"], input=text, capture_output=True, text=True)
    return proc.returncode == 0, proc.stdout + proc.stderr
